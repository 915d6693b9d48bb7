//! Work on a worker thread whose result the app picks up when it is ready, so the window
//! keeps drawing meanwhile (opening a model, exports, dialogs).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A running piece of work. A panic in the work becomes an `Err` with its message.
pub struct Job<T> {
    slot: Arc<Mutex<Option<Result<T, String>>>>,
}

impl<T: Send + 'static> Job<T> {
    pub fn spawn(name: &str, work: impl FnOnce() -> T + Send + 'static) -> Job<T> {
        let slot: Arc<Mutex<Option<Result<T, String>>>> = Default::default();
        let sink = slot.clone();
        let run = move || {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
                    panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| crate::tr!("app-work-stopped"))
                });
            if let Ok(mut slot) = sink.lock() {
                *slot = Some(outcome);
            }
        };
        if let Err(e) = std::thread::Builder::new().name(name.into()).spawn(run) {
            *slot.lock().expect("a new lock") = Some(Err(crate::tr!(
                "app-worker-cannot-start",
                reason = e.to_string()
            )));
        }
        Job { slot }
    }

    /// The result once the work is done (once).
    pub fn take(&self) -> Option<Result<T, String>> {
        self.slot.lock().ok().and_then(|mut s| s.take())
    }
}

/// How far a job has got, shared between the worker and the window (thousandths).
#[derive(Clone, Default, Debug)]
pub struct Progress(Arc<AtomicU32>);

impl Progress {
    /// Called by the worker with 0..=1.
    pub fn set(&self, fraction: f32) {
        self.0.store(
            (fraction.clamp(0.0, 1.0) * 1000.0) as u32,
            Ordering::Relaxed,
        );
    }

    pub fn get(&self) -> f32 {
        self.0.load(Ordering::Relaxed) as f32 / 1000.0
    }
}
