//! The reviewed rule set that makes a typed wrapper `unsafe` whatever its parameters, in two
//! classes ([`Class`]): the functions that destroy, free or invalidate what the hand-written
//! safe layer may own, and those that change what a stream's later work is captured into or
//! ordered after (the safe layer's bookkeeping of stream-ordered lifetimes must see those
//! calls) — [`RULES`]; and the functions that create obligations elsewhere: memory, events or
//! objects another process or API owns and may end while this process uses them (IPC opens,
//! imports of shareable handles, host and graphics registration, interop maps) —
//! [`OBLIGATIONS`].
//!
//! Each rule is a C name or a word of the name (`*Destroy*`: the CamelCase word `Destroy`),
//! with the reason (a sentence saying what the function does that the safe layer must see)
//! and what to use instead, both rendered into the wrapper's `# Safety` section and listed by
//! `cargo xtask codegen --list-unbound`. Names are tried before words; [`EXCEPTIONS`] are
//! names a word matches that do none of it. A raw pointer, a handle or a callback makes a
//! wrapper `unsafe` anyway ([`super::Role::is_unsafe`]); these rules add the functions that
//! take only values (`cudaDeviceReset()`, `cudaDestroyTextureObject(unsigned long long)`) and
//! say why for all of them. This module decides nothing else.

use serde::{Deserialize, Serialize};

/// A rule of this module applied to a function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsafeRuling {
    /// The rule's pattern: a C name, or `*Word*` for a word of the name.
    pub pattern: String,
    /// What the function does that the safe layer must see (a sentence).
    pub reason: String,
    /// What the caller must ensure, by the rule's class (a sentence).
    pub caller_must: String,
    /// A sentence: what to use instead (Markdown, with links into the safe layer).
    pub prefer: String,
}

/// What a rule matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// One C function by name.
    Name(&'static str),
    /// Every function whose C name has this CamelCase word (`Free` in `cudaFreeArray`).
    Word(&'static str),
}

/// Why a rule makes a wrapper `unsafe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// It destroys, frees or invalidates what the safe layer may own, or changes what a
    /// stream's work is ordered after.
    Invalidates,
    /// It makes this process use something another process or API owns and may end: the
    /// caller must keep that owner's promise, which nothing here can check.
    Obligation,
}

impl Class {
    /// What a caller of a function of this class must ensure (a sentence of its `# Safety`).
    pub fn caller_must(self) -> &'static str {
        match self {
            Class::Invalidates => {
                "The safe layer does not see this call: the caller must ensure that nothing it \
                 affects is owned, or in use, by a safe-layer object."
            }
            Class::Obligation => {
                "The caller must ensure that the owner keeps it alive, and does not change it \
                 in ways this process does not expect, for as long as anything obtained through \
                 this call is in use, here and in the work enqueued with it."
            }
        }
    }
}

/// One rule: the pattern, what the function does, and what to use instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsafeRule {
    pub pattern: Pattern,
    /// A sentence: what the function does that the safe layer must see.
    pub reason: &'static str,
    /// A sentence: what to use instead (Markdown: links into the safe layer resolve in the
    /// emitted crate).
    pub prefer: &'static str,
}

const RESET: &str = "It destroys every allocation, stream, event, graph, pool and module of \
                     the current device and resets its primary context: every handle the safe \
                     layer holds for that device dies with them, and their owners would later \
                     use or destroy dead handles.";
const RESET_PREFER: &str = "Prefer [`Device::reset`](crate::Device::reset), once every safe-layer \
                            object of the device has been dropped.";
const CAPTURE_PREFER: &str = "Prefer [`Stream::begin_capture`](crate::Stream::begin_capture) or \
                              [`Stream::capture`](crate::Stream::capture), which keep what the \
                              captured work uses alive for the graph.";
const USER_OBJECT: &str = "It releases references to a user object: the safe layer keeps \
                           what a graph uses alive through user objects, so releasing one of \
                           its references frees memory the graph may still use.";
const FOREIGN: &str = "No safe-layer type owns these handles: finish every use of the handle, \
                       and of what was mapped from it, before the call.";

/// The rules, names first (the first match decides).
pub const RULES: &[UnsafeRule] = &[
    UnsafeRule {
        pattern: Pattern::Name("cudaDeviceReset"),
        reason: RESET,
        prefer: RESET_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaThreadExit"),
        reason: RESET,
        prefer: RESET_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamDestroy"),
        reason: "It destroys a stream: a safe-layer `Stream` owning it would destroy it again, \
                 and memory the safe layer freed or guards on that stream would be ordered \
                 after a dead handle.",
        prefer: "Prefer dropping the [`Stream`](crate::Stream) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaEventDestroy"),
        reason: "It destroys an event: a safe-layer `Event` owning it would destroy it again, \
                 and a buffer waiting on it before a free or a host access would wait on a dead \
                 handle.",
        prefer: "Prefer dropping the [`Event`](crate::Event) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphDestroy"),
        reason: "It destroys a graph: a safe-layer `Graph` owning it would destroy it again, \
                 and what the graph references would be released while an exec made from it \
                 may still run.",
        prefer: "Prefer dropping the [`Graph`](crate::Graph) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphExecDestroy"),
        reason: "It destroys an executable graph: a safe-layer `GraphExec` owning it would \
                 destroy it again.",
        prefer: "Prefer dropping the [`GraphExec`](crate::GraphExec) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphDestroyNode"),
        reason: "It removes a node from its graph: what the safe layer keeps alive for that \
                 node no longer matches the graph.",
        prefer: "Prefer dropping the [`Graph`](crate::Graph) that holds the node (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaMemPoolDestroy"),
        reason: "It destroys a memory pool: a safe-layer `MemPool` owning it would destroy it \
                 again, and buffers allocated from it would be freed into a dead pool.",
        prefer: "Prefer dropping the [`MemPool`](crate::MemPool) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaLibraryUnload"),
        reason: "It unloads a library: a safe-layer `Module` owning it would unload it again, \
                 and its kernels (`Kernel`) would refer to unloaded code.",
        prefer: "Prefer dropping the [`Module`](crate::Module) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaFreeArray"),
        reason: "It frees a CUDA array: a safe-layer `CudaArray` owning it would free it \
                 again, and texture and surface objects made over it would read freed memory.",
        prefer:
            "Prefer dropping the [`CudaArray`](crate::texture::CudaArray) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaFreeMipmappedArray"),
        reason: "It frees a mipmapped array: arrays and texture objects made from its levels \
                 would read freed memory.",
        prefer: "Prefer dropping the object that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaDestroyTextureObject"),
        reason: "It destroys a texture object: a safe-layer `TextureObject` owning it would \
                 destroy it again, and kernels given it would read through a dead object.",
        prefer:
            "Prefer dropping the [`TextureObject`](crate::texture::TextureObject) that owns it \
                 (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaDestroySurfaceObject"),
        reason: "It destroys a surface object: a safe-layer `SurfaceObject` owning it would \
                 destroy it again, and kernels given it would write through a dead object.",
        prefer:
            "Prefer dropping the [`SurfaceObject`](crate::texture::SurfaceObject) that owns it \
                 (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaUserObjectRelease"),
        reason: USER_OBJECT,
        prefer: "Prefer letting the [`Graph`](crate::Graph) own its references (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphReleaseUserObject"),
        reason: USER_OBJECT,
        prefer: "Prefer letting the [`Graph`](crate::Graph) own its references (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphicsUnregisterResource"),
        reason: "It unregisters a graphics resource: the handle, and every pointer and array \
                 mapped from it, are dead afterwards.",
        prefer: FOREIGN,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaDestroyExternalMemory"),
        reason: "It destroys an imported memory object: every pointer and array mapped from \
                 it is dead afterwards.",
        prefer: FOREIGN,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaDestroyExternalSemaphore"),
        reason: "It destroys an imported semaphore: waits and signals enqueued on it would use \
                 a dead handle.",
        prefer: FOREIGN,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamBeginCapture"),
        reason: "It starts capturing a stream: the work enqueued on it afterwards is recorded \
                 into a graph instead of running, and the safe layer must know it to keep what \
                 that work uses alive for the graph rather than free it after the stream's \
                 work.",
        prefer: CAPTURE_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamBeginCaptureToGraph"),
        reason: "It starts capturing a stream into an existing graph: the work enqueued on it \
                 afterwards is recorded instead of running, and the safe layer must know it to \
                 keep what that work uses alive for the graph.",
        prefer: CAPTURE_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamEndCapture"),
        reason: "It ends a stream's capture and hands out the graph: a capture the safe layer \
                 started would end without it, and what the captured work uses would not be \
                 kept alive for the graph.",
        prefer: "Prefer [`CaptureGuard::end`](crate::CaptureGuard::end) or \
                 [`Stream::capture`](crate::Stream::capture).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamUpdateCaptureDependencies"),
        reason: "It changes what a capturing stream's next work depends on: the safe layer's \
                 record of what captured work is ordered after would be wrong.",
        prefer: CAPTURE_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamUpdateCaptureDependencies_v2"),
        reason: "It changes what a capturing stream's next work depends on: the safe layer's \
                 record of what captured work is ordered after would be wrong.",
        prefer: CAPTURE_PREFER,
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaStreamWaitEvent"),
        reason: "It orders a stream's later work after an event: the safe layer records such \
                 orderings to know when memory used on one stream may be freed or read on \
                 another.",
        prefer: "Prefer [`Stream::wait_event`](crate::Stream::wait_event).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaEventRecord"),
        reason: "It moves an event to a new point of a stream: the safe layer waits on the \
                 events it owns before freeing or reading memory, and a re-recorded event would \
                 no longer mark the work it waits for.",
        prefer: "Prefer [`Event::record`](crate::Event::record).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaEventRecordWithFlags"),
        reason: "It moves an event to a new point of a stream: the safe layer waits on the \
                 events it owns before freeing or reading memory, and a re-recorded event would \
                 no longer mark the work it waits for.",
        prefer: "Prefer [`Event::record`](crate::Event::record).",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaGraphLaunch"),
        reason: "It runs a graph's work, which may read or write device and host memory that \
                 the safe layer guards (a pinned buffer the host holds a borrow of, a buffer \
                 about to be freed), with no record of that use.",
        prefer: "Prefer [`GraphExec::launch`](crate::GraphExec::launch).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Destroy"),
        reason: "It destroys a handle: a safe-layer object owning it would destroy it again \
                 or use it afterwards.",
        prefer: "Prefer dropping the safe-layer object that owns the handle (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Free"),
        reason: "It frees memory or a resource: a safe-layer buffer, array or pool owning it \
                 would free it again or use it afterwards, and work still queued may use it.",
        prefer: "Prefer dropping the safe-layer object that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Unload"),
        reason: "It unloads code: kernels from it, and a safe-layer `Module` owning it, would \
                 refer to unloaded code.",
        prefer: "Prefer dropping the [`Module`](crate::Module) that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Release"),
        reason: "It releases a reference or a resource: what the safe layer keeps alive \
                 through it may be freed while still in use.",
        prefer: "Prefer dropping the safe-layer object that owns it (`Drop`).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Unregister"),
        reason: "It unregisters a resource or a callback: its handle is dead afterwards, and \
                 a safe-layer owner would unregister it again.",
        prefer: "Prefer dropping the safe-layer object that owns the registration (`Drop`).",
    },
];

const OWNED_ELSEWHERE: &str = "Keep the owner's promise for as long as anything made from the \
                               handle is in use: it is not checked here.";

/// The functions that create obligations elsewhere: what they open, import, register or map is
/// owned by another process or API, which may end it while this process still uses it.
pub const OBLIGATIONS: &[UnsafeRule] = &[
    UnsafeRule {
        pattern: Pattern::Name("cudaIpcOpenMemHandle"),
        reason: "It maps memory another process allocated: that process may free it while this \
                 one still uses the mapping (undefined behaviour), and nothing here can tell.",
        prefer: "Prefer [`IpcMemHandle::open`](crate::IpcMemHandle::open), whose mapping is \
                 closed after the work that uses it.",
    },
    UnsafeRule {
        pattern: Pattern::Name("cudaIpcOpenEventHandle"),
        reason: "It opens an event another process created: that process may destroy it while \
                 this one still records or waits on it.",
        prefer: "Prefer [`IpcEventHandle::open`](crate::IpcEventHandle::open).",
    },
    UnsafeRule {
        pattern: Pattern::Word("Import"),
        reason: "It imports memory, a semaphore or a pool allocation another process or API \
                 owns: its owner may free or destroy it while this process still uses it.",
        prefer: OWNED_ELSEWHERE,
    },
    UnsafeRule {
        pattern: Pattern::Word("Register"),
        reason: "It registers memory, a graphics object or a callback that another API owns: \
                 the registration must end before its owner frees it, and what it hands out is \
                 valid only until then.",
        prefer: OWNED_ELSEWHERE,
    },
    UnsafeRule {
        pattern: Pattern::Word("Map"),
        reason: "It maps a resource another API owns (a graphics object, imported memory): \
                 what the mapping hands out is valid only until it is unmapped or its owner \
                 ends the resource.",
        prefer: OWNED_ELSEWHERE,
    },
    UnsafeRule {
        pattern: Pattern::Word("Mapped"),
        reason: "It hands out memory or an array of a mapped resource another API owns: valid \
                 only until the resource is unmapped or ended by its owner.",
        prefer: OWNED_ELSEWHERE,
    },
    UnsafeRule {
        pattern: Pattern::Word("Unmap"),
        reason: "It unmaps a resource: every pointer and array mapped from it is dead \
                 afterwards.",
        prefer: OWNED_ELSEWHERE,
    },
];

/// Names a word of [`RULES`] matches that destroy, free or release nothing, with the reason.
pub const EXCEPTIONS: &[(&str, &str)] = &[(
    "cudaGraphMemFreeNodeGetParams",
    "it reads the parameters of a free node; it frees nothing",
)];

/// The CamelCase words of a C name: `cudaGraphAddMemFreeNode` → `cuda`, `Graph`, `Add`,
/// `Mem`, `Free`, `Node` (a run of capitals is one word per capital: `EGL` → `E`, `G`, `L`).
fn words(name: &str) -> impl Iterator<Item = &str> {
    let starts: Vec<usize> = name
        .char_indices()
        .filter(|&(i, c)| i == 0 || c.is_ascii_uppercase() || c == '_')
        .map(|(i, _)| i)
        .chain(std::iter::once(name.len()))
        .collect();
    (0..starts.len().saturating_sub(1))
        .map(move |k| name[starts[k]..starts[k + 1]].trim_start_matches('_'))
}

/// The first rule that matches the C function `name`, unless it is an exception: names of
/// both classes before words, and [`RULES`] before [`OBLIGATIONS`].
pub fn rule_for(name: &str) -> Option<&'static UnsafeRule> {
    rule_and_class(name).map(|(r, _)| r)
}

/// [`rule_for`] with the rule's class.
pub fn rule_and_class(name: &str) -> Option<(&'static UnsafeRule, Class)> {
    if EXCEPTIONS.iter().any(|(n, _)| *n == name) {
        return None;
    }
    let tables = [
        (RULES, Class::Invalidates),
        (OBLIGATIONS, Class::Obligation),
    ];
    let named = |(table, class): (&'static [UnsafeRule], Class)| {
        table
            .iter()
            .find(|r| matches!(r.pattern, Pattern::Name(n) if n == name))
            .map(|r| (r, class))
    };
    let worded = |(table, class): (&'static [UnsafeRule], Class)| {
        table
            .iter()
            .find(|r| matches!(r.pattern, Pattern::Word(w) if words(name).any(|x| x == w)))
            .map(|r| (r, class))
    };
    tables
        .into_iter()
        .find_map(named)
        .or_else(|| tables.into_iter().find_map(worded))
}

impl Pattern {
    /// How the rule is written in reports: the name, or `*Word*`.
    pub fn text(self) -> String {
        match self {
            Pattern::Name(n) => n.to_string(),
            Pattern::Word(w) => format!("*{w}*"),
        }
    }
}

/// The ruling for the C function `name`, for the model.
pub fn ruling(name: &str) -> Option<UnsafeRuling> {
    rule_and_class(name).map(|(r, class)| UnsafeRuling {
        pattern: r.pattern.text(),
        reason: r.reason.to_string(),
        caller_must: class.caller_must().to_string(),
        prefer: r.prefer.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_camel_case() {
        let w: Vec<&str> = words("cudaGraphAddMemFreeNode").collect();
        assert_eq!(w, ["cuda", "Graph", "Add", "Mem", "Free", "Node"]);
        let w: Vec<&str> = words("cudaStreamUpdateCaptureDependencies_v2").collect();
        assert_eq!(w.last(), Some(&"v2"));
        assert_eq!(words("").count(), 0);
    }

    #[test]
    fn names_before_words_and_exceptions_and_plain_names_stay_safe() {
        let reset = rule_for("cudaDeviceReset").expect("a rule");
        assert_eq!(reset.pattern, Pattern::Name("cudaDeviceReset"));
        assert!(reset.prefer.starts_with("Prefer [`Device::reset`]"));
        // A name rule wins over the word rule `*Destroy*`.
        let stream = rule_for("cudaStreamDestroy").expect("a rule");
        assert_eq!(stream.pattern, Pattern::Name("cudaStreamDestroy"));
        // A function no name rule lists is caught by its word.
        let ctx = rule_for("cudaExecutionCtxDestroy").expect("a rule");
        assert_eq!(ctx.pattern, Pattern::Word("Destroy"));
        assert_eq!(
            rule_for("cudaGraphAddMemFreeNode").map(|r| r.pattern),
            Some(Pattern::Word("Free"))
        );
        assert_eq!(rule_for("cudaGraphMemFreeNodeGetParams"), None);
        // Words match whole: no `Free` in `cudaFreezeX`, nothing in a getter.
        assert_eq!(rule_for("cudaFreezeX"), None);
        assert_eq!(rule_for("cudaGetDeviceCount"), None);
        assert_eq!(rule_for("cudaCtxResetPersistingL2Cache"), None);
    }

    #[test]
    fn functions_that_create_obligations_elsewhere_are_a_class() {
        for name in [
            "cudaIpcOpenMemHandle",
            "cudaIpcOpenEventHandle",
            "cudaMemPoolImportFromShareableHandle",
            "cudaMemPoolImportPointer",
            "cudaImportExternalMemory",
            "cudaImportExternalSemaphore",
            "cudaHostRegister",
            "cudaGraphicsGLRegisterBuffer",
            "cudaGraphicsVDPAURegisterVideoSurface",
            "cudaGLRegisterBufferObject",
            "cudaGraphicsMapResources",
            "cudaGLMapBufferObject",
            "cudaExternalMemoryGetMappedBuffer",
            "cudaGraphicsResourceGetMappedPointer",
        ] {
            let (_, class) = rule_and_class(name).unwrap_or_else(|| panic!("{name}: no rule"));
            assert_eq!(class, Class::Obligation, "{name}");
        }
        // Unregistering and unmapping end what registering and mapping began.
        assert_eq!(
            rule_and_class("cudaHostUnregister").map(|(_, c)| c),
            Some(Class::Invalidates)
        );
        assert_eq!(
            rule_and_class("cudaGLUnmapBufferObject").map(|(_, c)| c),
            Some(Class::Obligation)
        );
        // Exporting creates no obligation in this process: what it exports stays owned here.
        assert_eq!(rule_for("cudaIpcGetMemHandle"), None);
        assert_eq!(rule_for("cudaMallocMipmappedArray"), None);
    }

    #[test]
    fn every_rule_has_a_reason_and_a_preference() {
        for r in RULES.iter().chain(OBLIGATIONS) {
            assert!(r.reason.ends_with('.'), "{:?}", r.pattern);
            assert!(r.reason.starts_with("It "), "{:?}", r.pattern);
            assert!(r.prefer.ends_with('.'), "{:?}", r.pattern);
        }
        for (n, why) in EXCEPTIONS {
            assert!(RULES
                .iter()
                .any(|r| matches!(r.pattern, Pattern::Word(w) if words(n).any(|x| x == w))));
            assert!(!why.is_empty());
        }
    }
}
