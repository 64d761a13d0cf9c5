// Copied by `cargo xtask codegen` from the generator's codegen/template/src/lifetime/holdings.rs:
// edit the template, not this copy.

//! What graphs hold ([`Holdings`], one set per graph, shared with the executable graphs,
//! clones and parents made from it; found by graph handle while a capture fills it) and when
//! an executable graph lets go ([`Launches`], [`release_after`]: once the streams it was
//! launched on have passed its launches).
//!
//! Not here: what a holding keeps alive or how it is freed ([`super::Life`]).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::capture::{capture_graph, Capture};
use super::current::with_device;
use super::deferred::{retry_later, Later};
use super::queue::{Queue, StreamKey};
use super::uses::{Access, Uses, WHOLE};
use super::{Enqueued, Life};
use crate::sys;

/// One thing a graph holds.
pub(crate) enum Held {
    /// A resource of the gate's: memory, a module, a handle.
    Life(Life),
    /// What another graph holds (a child graph's copy, a clone's original).
    Set(Arc<Holdings>),
    /// Anything else that must outlive the graph's launches: a host node's closure, an event
    /// (owned only to be dropped last).
    Other(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

/// What one graph holds, shared with the executable graphs, clones and parents made from it.
#[derive(Default)]
pub(crate) struct Holdings {
    items: Mutex<Vec<Held>>,
}

impl Holdings {
    fn lock(&self) -> MutexGuard<'_, Vec<Held>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds `item` for as long as this set lives.
    pub(crate) fn push(&self, item: Held) {
        self.lock().push(item);
    }

    /// The host-visible resources held here or by the sets held here (each once, in address
    /// order): what a launch must exclude host views of.
    pub(crate) fn host_lives(self: &Arc<Self>) -> Vec<Life> {
        let mut out = Vec::new();
        let mut seen = Vec::new();
        collect_host_lives(self, &mut out, &mut seen);
        out.sort_by_key(Life::addr);
        out.dedup_by_key(|l| l.addr());
        out
    }
}

/// The host-visible resources among `items` and the sets they hold (each once).
pub(crate) fn host_lives_of(items: &[Held]) -> Vec<Life> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for item in items {
        match item {
            Held::Life(l) if l.host_visible() => out.push(l.clone()),
            Held::Set(s) => collect_host_lives(s, &mut out, &mut seen),
            _ => {}
        }
    }
    out
}

/// Walks `set` and the sets it holds (each set once, so that a graph made a child of its
/// own child does not loop).
fn collect_host_lives(set: &Arc<Holdings>, out: &mut Vec<Life>, seen: &mut Vec<usize>) {
    let addr = Arc::as_ptr(set) as usize;
    if seen.contains(&addr) {
        return;
    }
    seen.push(addr);
    let children: Vec<Arc<Holdings>> = {
        let items = set.lock();
        let mut children = Vec::new();
        for item in items.iter() {
            match item {
                Held::Life(l) if l.host_visible() => out.push(l.clone()),
                Held::Set(s) => children.push(s.clone()),
                _ => {}
            }
        }
        children
    };
    for child in &children {
        collect_host_lives(child, out, seen);
    }
}

/// The holding sets of the graphs this crate knows (live [`crate::Graph`]s, and graphs being
/// captured, found through the capturing stream's capture info), by handle.
fn graphs() -> MutexGuard<'static, HashMap<usize, Arc<Holdings>>> {
    static GRAPHS: OnceLock<Mutex<HashMap<usize, Arc<Holdings>>>> = OnceLock::new();
    GRAPHS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The holding set of graph `raw` (made when first asked: a graph just created, or a capture
/// whose work the crate saw).
pub(crate) fn of_graph(raw: sys::cudaGraph_t) -> Arc<Holdings> {
    graphs().entry(raw.0 as usize).or_default().clone()
}

/// Makes graph `raw` (one of the crate's, or one being captured) hold `item`.
pub(crate) fn hold_in_graph(raw: sys::cudaGraph_t, item: Held) {
    of_graph(raw).push(item);
}

/// Forgets graph `raw`'s entry (before its handle can be reused), if it is still `set`.
pub(crate) fn forget_graph(raw: sys::cudaGraph_t, set: &Arc<Holdings>) {
    let mut table = graphs();
    if table
        .get(&(raw.0 as usize))
        .is_some_and(|s| Arc::ptr_eq(s, set))
    {
        table.remove(&(raw.0 as usize));
    }
}

/// Where an executable graph was launched: each created stream or legacy stream of a device
/// (kept, to be waited for when the graph lets go), and its launches on per-thread default
/// streams (recorded with events, as another thread cannot wait on those later).
#[derive(Default)]
pub(crate) struct Launches {
    streams: Vec<(Arc<Queue>, StreamKey, i32)>,
    per_thread: Uses,
}

impl Launches {
    /// Notes a launch just enqueued.
    pub(crate) fn note(&mut self, done: &Enqueued<'_>) {
        if done.key.is_per_thread() {
            self.per_thread.note_or_wait(
                done.queue.raw(),
                done.key,
                done.device,
                Access::Write,
                WHOLE,
            );
        } else if !self.streams.iter().any(|(_, k, _)| *k == done.key) {
            self.streams
                .push((done.queue.clone(), done.key, done.device));
        }
    }

    /// The launches made so far, to let something go after them: launches on per-thread
    /// default streams are waited for on the host now; `None` when that wait failed (what
    /// would be let go must then be kept for good).
    pub(crate) fn so_far(&mut self) -> Option<Launches> {
        self.per_thread.wait_host(Access::Write, WHOLE).ok()?;
        Some(Launches {
            streams: self.streams.clone(),
            per_thread: Uses::new(),
        })
    }
}

/// Lets go of `kept` once every launch in `launched` has completed: on the release thread,
/// an event is recorded on each stream it was launched on (once the stream is not being
/// captured), then the events and the per-thread launches are polled.
pub(crate) fn release_after(kept: Later, launched: Launches) {
    let Launches {
        mut streams,
        per_thread: mut events,
    } = launched;
    if streams.is_empty() && events.is_empty() {
        drop(kept);
        return;
    }
    let mut kept = Some(kept);
    retry_later(Box::new(move || {
        streams.retain(|(queue, key, device)| !record_after(queue, *key, *device, &mut events));
        if !streams.is_empty() || !events.all_done() {
            return false;
        }
        drop(kept.take());
        true
    }));
}

/// Records in `events` the point `queue` (named by `key`, of `device`) has reached, for work
/// enqueued there before (by any thread) to be waited for later; `false` while the stream
/// is being captured (a record would be captured, not run: try again later). When the record
/// fails, `events` is poisoned (what it guards is never let go).
fn record_after(queue: &Queue, key: StreamKey, device: i32, events: &mut Uses) -> bool {
    let _gate = queue.gate_shared();
    let record = |events: &mut Uses| -> crate::Result<bool> {
        if capture_graph(queue.raw())? != Capture::No {
            return Ok(false);
        }
        events.note(queue.raw(), key, device, Access::Write, WHOLE)?;
        Ok(true)
    };
    let recorded = match key {
        StreamKey::Legacy(d) => with_device(d, || record(events)),
        _ => record(events),
    };
    match recorded {
        Ok(done) => done,
        Err(e) => {
            events.poison(e);
            true
        }
    }
}
