//! The runtime the process's background work runs on: scheduled monitoring and the
//! re-screening of monitored subjects after a list change, webhook delivery, scheduled list
//! imports. (The screening index's first build at start is not: every check waits for it.)
//!
//! Its threads (workers and blocking threads alike) run below the HTTP workers' CPU
//! priority, as `IDREG_BACKGROUND_PRIORITY` says:
//! - `idle` (the default): Linux's `SCHED_IDLE` policy. The threads take the CPU time the
//!   requests leave, and a request's thread that wakes takes the core from them at once,
//!   where a thread of the normal policy (niced or not) keeps it until the scheduler's next
//!   tick (up to 4 ms at 250 Hz) — the wait a re-screening pass added to the reads' p99.
//!   Under a load that leaves the cores no idle time at all, background work slows to a
//!   small share, never to nothing;
//! - `0` to `19`: the normal policy with that many nice steps below the process.
//!
//! Lowering a thread's own priority needs no privilege. On systems other than Linux nothing
//! is lowered.

use std::future::Future;
use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

/// The highest nice value (the lowest normal priority) a thread can have.
pub const MAX_NICE: i32 = 19;

/// How far below the requests background work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// Only on CPU time the requests leave (`SCHED_IDLE`).
    Idle,
    /// The normal policy, this many nice steps below the process (0: the same priority).
    Nice(i32),
}

impl std::str::FromStr for Priority {
    type Err = String;

    fn from_str(s: &str) -> Result<Priority, String> {
        match s.trim() {
            "idle" => Ok(Priority::Idle),
            n => match n.parse::<i32>() {
                Ok(n) if (0..=MAX_NICE).contains(&n) => Ok(Priority::Nice(n)),
                _ => Err(format!(
                    "`{s}` is neither `idle` nor a nice step from 0 to {MAX_NICE}"
                )),
            },
        }
    }
}

impl std::fmt::Display for Priority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Priority::Idle => f.write_str("idle"),
            Priority::Nice(n) => write!(f, "nice {n}"),
        }
    }
}

/// The background runtime; shut down (without waiting for its tasks) when dropped.
pub struct Background {
    runtime: Option<Runtime>,
}

impl Background {
    /// Starts `threads` worker threads at `priority`.
    ///
    /// # Errors
    /// The runtime's threads could not be started.
    pub fn start(threads: usize, priority: Priority) -> std::io::Result<Background> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name("idreg-background")
            .enable_all()
            .on_thread_start(move || lower_priority(priority))
            .build()?;
        Ok(Background {
            runtime: Some(runtime),
        })
    }

    /// Runs `task` on the background runtime.
    pub fn spawn<F>(&self, task: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle().spawn(task)
    }

    /// The runtime's handle.
    pub fn handle(&self) -> &Handle {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the value")
            .handle()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // Dropping a runtime inside another one's task would block it: let the threads go.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Sets the calling thread's priority. A thread inherits its creator's, and the runtime's
/// threads start one another: a nice step is taken from the process's (its main thread's),
/// never added to what the thread inherited.
#[cfg(target_os = "linux")]
fn lower_priority(priority: Priority) {
    use thread_priority::{
        set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
        ThreadPriority, ThreadSchedulePolicy,
    };
    let lowered = match priority {
        Priority::Nice(0) => return,
        Priority::Idle => set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        )
        .map_err(|e| format!("{e:?}")),
        // On Linux, setpriority with a thread's id sets that thread's nice value alone; with
        // the process's id, the main thread's is read.
        Priority::Nice(nice) => {
            rustix::process::getpriority_process(Some(rustix::process::getpid()))
                .and_then(|process| {
                    rustix::process::setpriority_process(
                        Some(rustix::thread::gettid()),
                        (process + nice).min(MAX_NICE),
                    )
                })
                .map_err(|e| e.to_string())
        }
    };
    if let Err(e) = lowered {
        tracing::warn!(error = %e, %priority, "a background thread keeps the process's CPU priority");
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority(_priority: Priority) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    use thread_priority::{NormalThreadSchedulePolicy as Normal, ThreadSchedulePolicy};

    /// The calling thread's policy and nice value.
    fn own() -> (ThreadSchedulePolicy, i32) {
        let policy = thread_priority::thread_schedule_policy().unwrap();
        let nice = rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        (policy, nice)
    }

    fn process_nice() -> i32 {
        rustix::process::getpriority_process(Some(rustix::process::getpid())).unwrap()
    }

    /// What a worker and four blocking threads (started by the lowered workers) run at.
    fn seen(priority: Priority) -> Vec<(ThreadSchedulePolicy, i32)> {
        let background = Background::start(1, priority).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut seen = vec![background.spawn(async { own() }).await.unwrap()];
            let mut blocking = Vec::new();
            for _ in 0..4 {
                blocking.push(background.spawn(async {
                    tokio::task::spawn_blocking(|| {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        own()
                    })
                    .await
                    .unwrap()
                }));
            }
            for b in blocking {
                seen.push(b.await.unwrap());
            }
            seen
        })
    }

    #[test]
    fn background_work_runs_on_the_idle_policy_by_default_and_the_caller_keeps_its_own() {
        let before = own();
        assert_eq!(
            seen(Priority::Idle),
            vec![(ThreadSchedulePolicy::Normal(Normal::Idle), before.1); 5]
        );
        assert_eq!(
            own(),
            before,
            "the thread that started it keeps its priority"
        );
    }

    #[test]
    fn a_nice_step_is_taken_from_the_process_never_added_twice() {
        let want = (process_nice() + 10).min(MAX_NICE);
        assert_eq!(
            seen(Priority::Nice(10)),
            vec![(ThreadSchedulePolicy::Normal(Normal::Other), want); 5]
        );
        let same = process_nice();
        assert_eq!(
            seen(Priority::Nice(0))[0],
            (ThreadSchedulePolicy::Normal(Normal::Other), same)
        );
    }

    #[test]
    fn a_priority_is_idle_or_a_nice_step() {
        assert_eq!("idle".parse(), Ok(Priority::Idle));
        assert_eq!("0".parse(), Ok(Priority::Nice(0)));
        assert_eq!("19".parse(), Ok(Priority::Nice(19)));
        for bad in ["-1", "20", "low", "", "IDLE"] {
            assert!(bad.parse::<Priority>().is_err(), "{bad}");
        }
    }
}
