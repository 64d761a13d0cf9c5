// Copied by `cargo xtask codegen` from the generator's codegen/template/src/lifetime/mod.rs:
// edit the template, not this copy.

//! The gate: one road by which everything the safe layer owns stops existing, and the
//! bookkeeping that road needs. It is the bottom of the safe layer: it calls CUDA, the
//! error type and the loader, and nothing of the layer above it.
//!
//! Every resource whose end CUDA must not see early — device, pinned and managed memory, a
//! graph allocation, a module (its code and globals), a texture or surface object, an
//! array, a memory pool — has one [`Life`]. The memory types, graphs and kernels speak to it
//! in four verbs, and keep no bookkeeping of their own:
//!
//! | verb | called by | what the gate does |
//! |---|---|---|
//! | **use** ([`enqueue`], [`launch_graph`]) | every operation that enqueues work naming a resource: copies, memsets, kernel launches (the kernel's module too), graph launches (everything the graph holds) | before the work: refuses work the resource may not take (a graph allocation outside its capture; a texture or surface object, which borrows its memory, inside one; a graph launch while a host view of memory it holds is alive). After it: outside a capture, records the stream with an event unless it is the resource's home; inside a capture, the capturing graph holds the resource. A use that cannot be recorded poisons the resource: never freed, never shown to the host |
//! | **hold** ([`Life::hold`]) | explicit graph nodes, node updates of executable graphs | the graph (and every executable graph, clone and parent made from it, and their launches) holds the resource; refused for graph allocations and borrowed handles |
//! | **host** ([`Life::host`]) | host views and host access of pinned memory | waits (failing closed) for the uses a host access conflicts with; while the view lives, launches of graphs holding the resource are refused |
//! | **free** (`Drop` of the last [`Life`], [`Life::close`]) | `Drop` and `close` of every owner, module unload, IPC close, re-pooling, graph free nodes, pool and array destruction | the one place a resource stops existing: after every graph holding it let go, ordered after every recorded use (in stream order on the home stream, or by the host waiting, or by every device finishing), never inside a CUDA callback (the release thread does it), never into a capture of ordinary memory (retried once the capture ends), in relaxed capture mode; a resource whose uses could not be waited for is leaked, not freed |
//!
//! Parts: [`current`] (the current device), [`queue`] (a stream as the bookkeeping holds
//! it), [`capture`] (where enqueued work goes), [`uses`] (records of uses and the waits),
//! [`holdings`] (what graphs hold and when executable graphs let go), [`deferred`] (the
//! release thread, and running Rust code called from C).

pub(crate) mod capture;
pub(crate) mod current;
pub(crate) mod deferred;
pub(crate) mod holdings;
pub(crate) mod queue;
mod uses;

use std::ffi::c_int;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{report_drop_error, status, Error, Result};
use crate::sys;
use capture::{any_capture, capture_graph, capture_of, Capture};
use current::with_device;
use holdings::{Held, Launches};
use queue::{Queue, StreamKey};

use uses::relaxed_brief;
pub(crate) use uses::{relaxed, wait_stream, Access, Bytes, NOT_READY, WHOLE};

/// Where a resource's free is ordered, and which uses it may take.
pub(crate) enum Kind {
    /// Device memory: freed in stream order on its home stream, after the other streams'
    /// recorded uses.
    Device(Home),
    /// Host memory the device reads and writes (pinned): every use is recorded; the host
    /// waits for them before a view or the free, and views exclude graph launches.
    Host,
    /// Used without records (a module's code and globals, managed memory): the free waits
    /// for every device; captures hold it.
    Everywhere,
    /// A handle that borrows memory (a texture or surface object): every use is recorded (as
    /// for [`Kind::Host`], and on the memory it reads too), the free waits for them; no graph
    /// may hold it (a graph would outlive the borrow), so captures refuse it.
    Borrowing,
    /// A graph allocation, made by the capture `capture` into graph `graph` on `home`: only
    /// work captured into that capture may use it, and it is freed there (a free node).
    Graph {
        home: Home,
        graph: usize,
        capture: u64,
    },
}

/// A resource's home stream: where it was allocated and is freed.
pub(crate) struct Home {
    pub(crate) queue: Arc<Queue>,
    pub(crate) key: StreamKey,
    pub(crate) device: i32,
}

impl Home {
    /// The home of what is allocated on `queue` with `device` current.
    pub(crate) fn new(queue: &Arc<Queue>, device: i32) -> Home {
        Home {
            queue: queue.clone(),
            key: StreamKey::of(queue, device),
            device,
        }
    }
}

/// The call that ends a resource (`cudaFreeAsync`, `cudaFreeHost`, `cudaLibraryUnload`, a
/// pool's re-pooling, …), run once by the free road.
pub(crate) type Release = Box<dyn FnOnce() -> Result<()> + Send>;

/// The gate's record of one resource (see the [module documentation](self)); clones share
/// it. The last clone's drop is the resource's free.
#[derive(Clone)]
pub(crate) struct Life(Arc<Shared>);

struct Shared {
    /// What the resource is, for reports ("device buffer").
    what: &'static str,
    kind: Kind,
    /// The resource a handle reads (a texture's memory): every use of the handle is a use of
    /// it too.
    under: Option<Life>,
    state: Mutex<State>,
    /// The free; `None` for a resource that needs none (nothing allocated) or was given up.
    release: Mutex<Option<Release>>,
}

#[derive(Default)]
struct State {
    uses: uses::Uses,
    /// The graph and capture that last took the resource, so that it is held once per
    /// capture.
    kept_in: Option<(usize, u64)>,
    /// Live host views.
    views: usize,
}

/// A part of a resource an operation uses, and how.
#[derive(Clone, Copy)]
pub(crate) struct Part<'a> {
    pub(crate) life: &'a Life,
    pub(crate) range: Bytes,
    pub(crate) access: Access,
}

impl<'a> Part<'a> {
    /// The whole of `life`, used as `access`.
    pub(crate) fn whole(life: &'a Life, access: Access) -> Part<'a> {
        Part {
            life,
            range: WHOLE,
            access,
        }
    }
}

/// How an operation's stream stood right after the operation was enqueued.
pub(crate) struct Enqueued<'q> {
    pub(crate) queue: &'q Arc<Queue>,
    pub(crate) key: StreamKey,
    pub(crate) device: i32,
    /// Whether the operation was captured, and into which graph; `Err` when the capture
    /// status could not be read (the operation may or may not have been captured).
    pub(crate) capture: Result<Capture>,
}

/// The "home" key of host memory: a key no stream has, so that every use is recorded.
const HOST: StreamKey = StreamKey::Handle(usize::MAX);

impl Life {
    /// A resource of `kind`, ended by `release` (`None`: nothing to end).
    pub(crate) fn new(what: &'static str, kind: Kind, release: Option<Release>) -> Life {
        Life::over(what, kind, release, None)
    }

    /// A handle of `kind` that reads `under` (a texture object and its memory).
    pub(crate) fn over(
        what: &'static str,
        kind: Kind,
        release: Option<Release>,
        under: Option<Life>,
    ) -> Life {
        Life(Arc::new(Shared {
            what,
            kind,
            under,
            state: Mutex::new(State::default()),
            release: Mutex::new(release),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The address of the shared record (an identity, for ordering locks).
    pub(crate) fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Whether host views of the resource exclude graph launches (pinned memory).
    pub(crate) fn host_visible(&self) -> bool {
        matches!(self.0.kind, Kind::Host)
    }

    /// Whether an operation must ask where its work goes before enqueuing it.
    #[inline]
    fn admission(&self) -> bool {
        matches!(self.0.kind, Kind::Graph { .. } | Kind::Borrowing)
    }

    /// The first half of **use**: whether work going to `capture` may use the resource.
    fn admit(&self, capture: &Capture) -> Result<()> {
        match (&self.0.kind, capture) {
            (
                Kind::Graph {
                    graph, capture: id, ..
                },
                Capture::Into(g, c),
            ) if g.0 as usize == *graph && c == id => Ok(()),
            (Kind::Graph { .. }, _) => Err(Error::InvalidArgument(
                "a graph allocation is usable only by work captured into the capture that \
                 allocated it"
                    .into(),
            )),
            (Kind::Borrowing, Capture::No) => Ok(()),
            (Kind::Borrowing, _) => Err(Error::InvalidArgument(format!(
                "a {} borrows its memory and cannot be captured into a graph, which would \
                 outlive the borrow",
                self.0.what
            ))),
            _ => Ok(()),
        }
    }

    /// The second half of **use**: records what an operation just enqueued did with `range`
    /// of the resource (see the [module documentation](self)). Fails closed: when a record
    /// fails the host waits for the stream instead, and when that fails too, or the capture
    /// status could not be read, the resource is poisoned.
    pub(crate) fn used(&self, done: &Enqueued<'_>, access: Access, range: Bytes) {
        if let Some(under) = &self.0.under {
            under.used(done, access, WHOLE);
        }
        let home_key = match &self.0.kind {
            Kind::Device(home) => home.key,
            Kind::Host | Kind::Borrowing => HOST,
            Kind::Everywhere => {
                match &done.capture {
                    Ok(Capture::Into(graph, id)) => self.held_by_capture(*graph, *id),
                    Ok(_) => {}
                    // The work may have been captured: the graph could run after the free.
                    Err(_) => std::mem::forget(self.clone()),
                }
                return;
            }
            Kind::Graph { home, .. } => {
                // Admitted into its capture: uses on other streams of a fork-join capture
                // are recorded (inside the capture) so that the free node follows them.
                if done.key != home.key {
                    let mut st = self.lock();
                    if let Err(e) =
                        st.uses
                            .note(done.queue.raw(), done.key, done.device, access, range)
                    {
                        st.uses.poison(e);
                    }
                }
                return;
            }
        };
        match &done.capture {
            Ok(Capture::No) => {
                if done.key == home_key && !home_key.is_per_thread() {
                    return;
                }
                self.lock().uses.note_or_wait(
                    done.queue.raw(),
                    done.key,
                    done.device,
                    access,
                    range,
                );
            }
            Ok(Capture::Into(graph, id)) => self.held_by_capture(*graph, *id),
            Ok(Capture::Dead) => {}
            Err(e) => self.lock().uses.poison(e.clone()),
        }
    }

    /// Makes the graph being captured hold the resource (once per capture).
    fn held_by_capture(&self, graph: sys::cudaGraph_t, id: u64) {
        let key = (graph.0 as usize, id);
        {
            let mut st = self.lock();
            if st.kept_in == Some(key) {
                return;
            }
            st.kept_in = Some(key);
        }
        holdings::hold_in_graph(graph, Held::Life(self.clone()));
    }

    /// **hold**: what a graph or executable graph holds to keep the resource alive (for an
    /// explicit node, or a node's new parameters); refused for a graph allocation (only its
    /// own capture may use it) and for a handle that borrows its memory.
    pub(crate) fn hold(&self) -> Result<Held> {
        match &self.0.kind {
            Kind::Graph { .. } => Err(Error::InvalidArgument(
                "a graph allocation cannot be named by a graph node: only work captured into \
                 the capture that allocated it may use it"
                    .into(),
            )),
            Kind::Borrowing => Err(Error::InvalidArgument(format!(
                "a {} borrows its memory and cannot be held by a graph",
                self.0.what
            ))),
            _ => Ok(Held::Life(self.clone())),
        }
    }

    /// **hold** in graph `raw` (an explicit node that uses the resource).
    pub(crate) fn hold_in(&self, raw: sys::cudaGraph_t) -> Result<()> {
        holdings::hold_in_graph(raw, self.hold()?);
        Ok(())
    }

    /// **host**: waits for the uses a host access of this kind to `range` conflicts with, and
    /// returns the view's token: while it lives, launches of graphs holding the resource are
    /// refused. A failed wait grants nothing.
    pub(crate) fn host(&self, access: Access, range: Bytes) -> Result<View> {
        let mut st = self.lock();
        st.uses.wait_host(access, range)?;
        st.views += 1;
        Ok(View(self.clone()))
    }

    /// **free**, now: when this is the last reference, the resource is freed (or, where the
    /// free cannot run yet, handed to the release thread) and a failure is returned; with
    /// other references (graphs holding it) the last of them frees it.
    pub(crate) fn close(self) -> Result<()> {
        match Arc::try_unwrap(self.0) {
            Ok(shared) => match shared.into_freeing() {
                Some(job) => job.run_now(),
                None => Ok(()),
            },
            Err(_) => Ok(()),
        }
    }

    /// Gives the resource up without ending it (`into_raw_parts`): nothing is freed when the
    /// last reference goes.
    pub(crate) fn give_up(self) {
        self.0
            .release
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }
}

impl std::fmt::Debug for Life {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Life({}, {:#x})", self.0.what, self.addr())
    }
}

/// A live host view of a resource (see [`Life::host`]).
pub(crate) struct View(Life);

impl Drop for View {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.views = st.views.saturating_sub(1);
    }
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("View")
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(job) = self.take_freeing() {
            job.run();
        }
    }
}

impl Shared {
    fn into_freeing(mut self) -> Option<Freeing> {
        self.take_freeing()
    }

    /// The free to run, taken once (`None` when there is nothing to free).
    fn take_freeing(&mut self) -> Option<Freeing> {
        let release = self
            .release
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let state = std::mem::take(self.state.get_mut().unwrap_or_else(|e| e.into_inner()));
        Some(Freeing {
            what: self.what,
            kind: std::mem::replace(&mut self.kind, Kind::Host),
            uses: state.uses,
            release,
            _under: self.under.take(),
        })
    }
}

/// A free on its way: the resource's kind, its recorded uses and the call that ends it.
struct Freeing {
    what: &'static str,
    kind: Kind,
    uses: uses::Uses,
    release: Release,
    /// The memory a handle reads, let go once the handle is.
    _under: Option<Life>,
}

/// What a free attempt came to.
enum Attempt {
    Done(Result<()>),
    /// It cannot run yet (a capture would take it in): try again later.
    NotYet(Freeing),
}

impl Freeing {
    /// Frees, reporting a failure through the drop-error hook.
    fn run(self) {
        let what = self.what;
        if let Err(e) = self.run_now() {
            report_drop_error(what, &e);
        }
    }

    /// Frees now and returns the failure, or hands the free to the release thread (inside a
    /// CUDA callback, or while a capture would take it in).
    fn run_now(self) -> Result<()> {
        if crate::loader::in_callback() {
            deferred::release_later(Box::new(FreeOnDrop(Some(self))));
            return Ok(());
        }
        match self.attempt() {
            Attempt::Done(result) => result,
            Attempt::NotYet(job) => {
                let mut pending = Some(job);
                deferred::retry_later(Box::new(move || {
                    match pending.take().map(Freeing::attempt) {
                        None => true,
                        Some(Attempt::Done(result)) => {
                            if let Err(e) = result {
                                report_drop_error("deferred free", &e);
                            }
                            true
                        }
                        Some(Attempt::NotYet(job)) => {
                            pending = Some(job);
                            false
                        }
                    }
                }));
                Ok(())
            }
        }
    }

    /// Leaks the resource (its uses may still run) and returns `e`.
    fn leak(self, e: Error) -> Attempt {
        std::mem::forget(self.release);
        Attempt::Done(Err(e))
    }

    fn attempt(mut self) -> Attempt {
        if let Some(e) = self.uses.poisoned_error() {
            return self.leak(e);
        }
        match &self.kind {
            Kind::Device(home) => {
                let queue = home.queue.clone();
                let (key, device) = (home.key, home.device);
                // Under the gate no capture of the crate's begins on the home stream between
                // the check and the waits and free (which a capture would take in).
                let _gate = queue.gate_shared();
                match capture_of(&queue) {
                    Ok(Capture::No) => {}
                    Ok(_) => return Attempt::NotYet(self),
                    Err(e) => return self.leak(e),
                }
                // A default stream is the current device's: switch to the memory's (when the
                // runtime cannot say which is current, there is nothing to switch).
                let switch = key.is_default()
                    && current::current_ordinal().is_ok_and(|current| current != device);
                let on_home = |f: &mut dyn FnMut() -> Result<()>| {
                    if switch {
                        with_device(device, || relaxed_brief(&mut *f))
                    } else {
                        relaxed_brief(f)
                    }
                };
                // One relaxed scope for the waits and the free: when the waits fail, the
                // release is dropped uncalled (the resource leaks, as `leak` does).
                let (uses, mut release) = (&mut self.uses, Some(self.release));
                Attempt::Done(on_home(&mut || {
                    uses.order_before(queue.raw())?;
                    release.take().map_or(Ok(()), |r| r())
                }))
            }
            Kind::Host | Kind::Borrowing => {
                if let Err(e) = self.uses.wait_host(Access::Write, WHOLE) {
                    return self.leak(e);
                }
                Attempt::Done(relaxed(self.release))
            }
            Kind::Everywhere => {
                // Synchronising a device while one of its streams is captured is invalid
                // (and would spoil the capture): wait until no capture of the crate's runs.
                if any_capture() {
                    return Attempt::NotYet(self);
                }
                if let Err(e) = synchronize_all_devices() {
                    return self.leak(e);
                }
                Attempt::Done(relaxed(self.release))
            }
            Kind::Graph {
                home,
                graph,
                capture,
            } => {
                let queue = home.queue.clone();
                let _gate = queue.gate_shared();
                match capture_graph(queue.raw()) {
                    Ok(Capture::Into(g, id)) if g.0 as usize == *graph && id == *capture => {
                        if let Err(e) = self.uses.order_before(queue.raw()) {
                            return self.leak(e);
                        }
                        // A free node of the capture: the allocation ends inside the graph.
                        Attempt::Done((self.release)())
                    }
                    // The capture is over (invalidated, or ended behind the crate's back):
                    // the allocation exists only inside that graph, and nothing is freed here.
                    Ok(_) => Attempt::Done(Ok(())),
                    Err(e) => self.leak(e),
                }
            }
        }
    }
}

/// A free handed to the release thread, run when dropped there.
struct FreeOnDrop(Option<Freeing>);

impl Drop for FreeOnDrop {
    fn drop(&mut self) {
        if let Some(job) = self.0.take() {
            job.run();
        }
    }
}

/// Waits until every device has finished its work (in relaxed capture mode).
fn synchronize_all_devices() -> Result<()> {
    let mut n: c_int = 0;
    // SAFETY: one int is written.
    status(unsafe { sys::cudaGetDeviceCount(&mut n) })?;
    for d in 0..n {
        // SAFETY: a value-only call.
        with_device(d, || {
            relaxed(|| status(unsafe { sys::cudaDeviceSynchronize() }))
        })?;
    }
    Ok(())
}

/// **use**: runs `op`, which enqueues work on `queue`, with the stream's device current
/// (`device` for the default streams, whose device is the current one), after admitting every
/// part (see [`Life::admit`]), then records what the work did with each part. The stream's
/// capture status is read under its gate, so that no capture of this crate's begins or ends
/// in between.
#[inline]
pub(crate) fn enqueue<R>(
    queue: &Arc<Queue>,
    device: i32,
    parts: &[Part<'_>],
    op: impl FnOnce() -> Result<R>,
) -> Result<R> {
    enqueue_with(queue, device, parts.iter().copied(), op)
}

/// [`enqueue`] over any list of parts (a kernel's arguments).
#[inline]
pub(crate) fn enqueue_with<'p, R, I>(
    queue: &Arc<Queue>,
    device: i32,
    parts: I,
    op: impl FnOnce() -> Result<R>,
) -> Result<R>
where
    I: Iterator<Item = Part<'p>> + Clone,
{
    let _gate = queue.gate_shared();
    let device = queue.device().unwrap_or(device);
    with_device(device, || {
        if parts.clone().any(|p| p.life.admission()) {
            let capture = capture_of(queue)?;
            for p in parts.clone() {
                p.life.admit(&capture)?;
            }
        }
        // A failed call is recorded too: it may have enqueued its work all the same.
        let value = op();
        let done = Enqueued {
            queue,
            key: StreamKey::of(queue, device),
            device,
            capture: capture_of(queue),
        };
        for p in parts {
            p.life.used(&done, p.access, p.range);
        }
        value
    })
}

/// **use** by a graph launch: enqueues `launch` (a `cudaGraphLaunch` on `queue`) while
/// excluding host views of `guarded` (the host-visible resources the graph holds, in address
/// order): refused while a view of one is alive, and recorded as a use of each, so that later
/// views wait for it. Refused into a capture. `log` notes the launch.
pub(crate) fn launch_graph(
    guarded: &[Life],
    queue: &Arc<Queue>,
    device: i32,
    log: &mut Launches,
    launch: impl FnOnce() -> Result<()>,
) -> Result<()> {
    // The stream's gate first, then the resources (every path takes them in this order).
    let _gate = queue.gate_shared();
    let mut states: Vec<MutexGuard<'_, State>> = Vec::with_capacity(guarded.len());
    for life in guarded {
        let st = life.lock();
        if st.views > 0 {
            return Err(Error::InvalidArgument(format!(
                "a host view of a {} this graph uses is alive: drop it before launching",
                life.0.what
            )));
        }
        states.push(st);
    }
    let device = queue.device().unwrap_or(device);
    with_device(device, || {
        // Under the gate, no capture of the crate's begins or ends until the launch is in.
        if capture_of(queue)? != Capture::No {
            return Err(Error::InvalidArgument(
                "launching an executable graph into a stream being captured".into(),
            ));
        }
        // A failed launch is recorded too: it may have been enqueued all the same.
        let launched = launch();
        let done = Enqueued {
            queue,
            key: StreamKey::of(queue, device),
            device,
            capture: Ok(Capture::No),
        };
        for st in &mut states {
            st.uses
                .note_or_wait(queue.raw(), done.key, device, Access::Write, WHOLE);
        }
        log.note(&done);
        launched
    })
}
