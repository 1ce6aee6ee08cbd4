//! The host's hook on each approval created
//! ([`Toolbox::on_approval`](crate::Toolbox::on_approval)): how a host
//! tells a person that something waits for them.
//!
//! The hook runs on a thread of its own, never in the call: the call has
//! answered `approval_required` whatever the hook does. It is handed a
//! copy of the approval, so it cannot change what was saved; a hook that
//! panics is caught there and logged, and the next approval is handed to
//! it as before; a hook that is slow (a mail server that does not answer)
//! holds up no call, only the notices queued behind it. Past
//! [`QUEUED`] waiting notices, a new one is dropped and logged rather
//! than held: a hook that never returns costs bounded memory.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use super::approval::Approval;
use crate::audit;

/// Notices of approvals that wait for the hook before new ones are
/// dropped.
pub(crate) const QUEUED: usize = 1024;

/// Hands approvals to the host's hook on its thread.
pub(crate) struct Notifier {
    queue: SyncSender<Approval>,
}

impl Notifier {
    /// Starts the thread that runs `hook` on each approval it is handed.
    /// A thread that cannot be started leaves a notifier whose every
    /// notice is logged as undelivered.
    pub(crate) fn start(hook: Box<dyn Fn(&Approval) + Send + 'static>) -> Notifier {
        let (queue, notices) = sync_channel(QUEUED);
        let started = std::thread::Builder::new()
            .name("toolgate-approval-hook".to_owned())
            .spawn(move || run(&*hook, &notices));
        if let Err(error) = started {
            audit::hook_failed("", "", &format!("the hook's thread did not start: {error}"));
        }
        Notifier { queue }
    }

    /// Queues `approval` for the hook, without waiting.
    pub(crate) fn notify(&self, approval: &Approval) {
        let reason = match self.queue.try_send(approval.clone()) {
            Ok(()) => return,
            Err(TrySendError::Full(_)) => {
                "the hook is behind by more notices than are kept; this one was dropped"
            }
            Err(TrySendError::Disconnected(_)) => "the hook's thread is not running",
        };
        audit::hook_failed(&approval.tool, &approval.id, reason);
    }
}

/// The hook's thread: each notice in turn, until the toolbox is dropped.
fn run(hook: &(dyn Fn(&Approval) + Send), notices: &Receiver<Approval>) {
    for approval in notices {
        // Sound: the hook sees nothing of the toolbox, only its own copy
        // of the approval, dropped after the panic.
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| hook(&approval))) {
            let message = crate::gate::panic::Panic::from(panic);
            audit::hook_failed(
                &approval.tool,
                &approval.id,
                &format!("the hook panicked: {}", message.message()),
            );
        }
    }
}
