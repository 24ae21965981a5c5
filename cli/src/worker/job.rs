//! One delivered job, from the pull to its ack: skip it when its outcome is
//! already recorded, dead-letter it when every earlier worker died with it,
//! run it through the host with in-progress acks, then record its outcome
//! and ack (or release it, or let it be redelivered).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::client::ClientBuilder;
use claude_agent::fleet::async_nats::jetstream::{AckKind, Message};
use claude_agent::fleet::{DeadLetter, JobId, JobOutcome, JobSpec, Redelivery};
use claude_agent::host::HostError;
use claude_agent::store::{SessionKey, project_key_for};
use serde_json::{Value, json};
use tokio::sync::OwnedSemaphorePermit;

use super::Ctx;
use super::verdict::{Verdict, classify};

/// Give a job back for immediate redelivery.
pub(crate) const NAK_NOW: AckKind = AckKind::Nak(None);
/// Redelivery delay after a failure a rerun may fix.
const RETRY_DELAY: Duration = Duration::from_millis(500);
/// Pause between attempts to record an outcome (the server may be
/// restarting).
const RECORD_RETRY: Duration = Duration::from_millis(250);

/// `held` is the pull loop's permit for this job: given back once the
/// job's CLI is gone.
pub(crate) async fn handle(ctx: Arc<Ctx>, msg: Message, held: OwnedSemaphorePermit) {
    let info = msg.info().ok().map(|i| (i.delivered, i.stream_sequence));
    let (delivered, seq) = info.unwrap_or((1, 0));
    let deliveries = u64::try_from(delivered).unwrap_or(1);
    let raw: Value = serde_json::from_slice(&msg.payload).unwrap_or(Value::Null);
    let parsed = std::str::from_utf8(&msg.payload)
        .map_err(|_| "the job is not UTF-8".to_owned())
        .and_then(|text| JobSpec::parse(text).map_err(|e| e.to_string()));
    let id = parsed
        .as_ref()
        .ok()
        .and_then(|j| j.job_id().ok().flatten())
        .or_else(|| raw.get("id").and_then(|v| JobId::from_value(v).ok()))
        .or_else(|| JobId::new(format!("seq-{seq}")).ok())
        .unwrap_or_else(JobId::generate);
    // A redelivered job may have been recorded, or have left a session
    // file on this machine, before its worker died. A first delivery has
    // neither: an outcome needs an earlier delivery (or a submission of
    // the same id after the dedup window, whose run then records nothing:
    // `Fleet::record` refuses a second outcome), and so does a session
    // file here. Its only look-up is the store (that resubmission's
    // transcript, resumed rather than started over).
    let redelivered = deliveries > 1;
    let session_probe = async {
        match &parsed {
            Ok(job) if job.session_id.is_none() && job.on_redelivery == Redelivery::Resume => {
                Some(stored(&ctx, job, &id.session_uuid(), redelivered).await)
            }
            _ => None,
        }
    };
    let check = async {
        if redelivered {
            ctx.fleet.recorded(&id).await
        } else {
            Ok(None)
        }
    };
    let (recorded, probe) = tokio::join!(check, session_probe);
    match recorded {
        Ok(Some(_)) => {
            // Recorded by a worker that died before its ack: never run
            // twice for nothing.
            let _ = msg.ack().await;
            let (j, t) = (
                json!({"kind": "job_skipped", "job_id": id, "reason": "outcome already recorded"}),
                format!("job {id}: its outcome is already recorded; acked"),
            );
            ctx.out.emit(j, t).await;
            return;
        }
        Ok(None) => {}
        Err(e) => {
            return retry_later(
                &ctx,
                &msg,
                &format!("job {id}: checking for its outcome failed: {e}"),
            )
            .await;
        }
    }
    if ctx.draining.is_cancelled() {
        let _ = msg.ack_with(NAK_NOW).await;
        return;
    }
    let tenant = raw["tenant"].as_str().unwrap_or("?").to_owned();
    let job = match parsed {
        Ok(job) => job,
        Err(reason) => {
            let outcome =
                JobOutcome::failed(id, tenant, "invalid_job", reason, deliveries, &ctx.worker);
            return finish(&ctx, &msg, outcome, true).await;
        }
    };
    if deliveries > ctx.max_deliveries {
        // Every earlier delivery ended without an outcome: its worker died.
        let message = format!(
            "every worker that took it ({} deliveries) stopped before it ended",
            deliveries - 1
        );
        let outcome = JobOutcome::failed(
            id,
            &job.tenant,
            "worker_died",
            message,
            deliveries,
            &ctx.worker,
        );
        return dead_letter(&ctx, &msg, &raw, outcome).await;
    }
    let options = match job.options(ctx.base.clone()) {
        Ok(o) => o,
        Err(e) => {
            let outcome = JobOutcome::failed(
                id,
                &job.tenant,
                "invalid_job",
                e.reason,
                deliveries,
                &ctx.worker,
            );
            return finish(&ctx, &msg, outcome, true).await;
        }
    };
    // A new conversation runs under a session id derived from the job id,
    // so a rerun (here or elsewhere) resumes what the store kept of it;
    // one that starts over runs each delivery under a random id, so no
    // attempt's transcript (in the store or in a file here) mixes with
    // another's.
    let (session, resume) = match &job.session_id {
        Some(s) => (s.clone(), true),
        None if job.on_redelivery == Redelivery::StartOver => {
            (JobId::generate().to_string(), false)
        }
        None => {
            let s = id.session_uuid();
            match probe.unwrap_or(Ok(false)) {
                Ok(has) => (s, has),
                Err(e) => {
                    let note = format!("job {id}: reading the session store failed: {e}");
                    return retry_later(&ctx, &msg, &note).await;
                }
            }
        }
    };
    let options = if resume {
        options.resume(session.clone())
    } else {
        options.session_id(session.clone())
    };
    let builder = ClientBuilder::new(options)
        .session_store(ctx.store.clone())
        .store_overflow(ctx.store_overflow.clone())
        // One project per tenant: the same key on every worker, whatever
        // its working directory.
        .store_project_key(job.tenant.clone())
        .grace(ctx.grace)
        .term_grace(ctx.term_grace)
        .initialize_timeout(ctx.timeout)
        .control_timeout(ctx.timeout);
    let handle = match ctx
        .host
        .submit(job.tenant.clone(), builder, job.prompt.clone())
        .await
    {
        Ok(h) => h,
        Err(e) => {
            let delay = (!matches!(e, HostError::Draining)).then_some(RETRY_DELAY);
            let _ = msg.ack_with(AckKind::Nak(delay)).await;
            return;
        }
    };
    let started = json!({"kind": "job_started", "job_id": id, "tenant": job.tenant,
        "delivery": deliveries, "session_id": session, "resume": resume});
    ctx.out
        .emit(
            started,
            format!("job {id}: started (delivery {deliveries})"),
        )
        .await;
    // Progress marks keep the job ours while it waits in the host's queue
    // and while its turn runs, so the ack wait can be short and still
    // bound recovery from a dead worker.
    let mut progress = tokio::time::interval((ctx.ack_wait / 3).max(Duration::from_millis(200)));
    progress.tick().await;
    let ended = handle.outcome();
    tokio::pin!(ended);
    let session_outcome = loop {
        tokio::select! {
            o = &mut ended => break o,
            _ = progress.tick() => { let _ = msg.ack_with(AckKind::Progress).await; }
        }
    };
    // The CLI is gone: the pull loop can take the next job while this
    // one's outcome is recorded.
    drop(held);
    let outcome = JobOutcome::from_session(
        id.clone(),
        Some(session),
        &session_outcome,
        deliveries,
        &ctx.worker,
    );
    match classify(&session_outcome) {
        Verdict::Done => finish(&ctx, &msg, outcome, false).await,
        Verdict::Unfixable => finish(&ctx, &msg, outcome, true).await,
        Verdict::Release => {
            let _ = msg.ack_with(NAK_NOW).await;
            ctx.out
                .emit(
                    json!({"kind": "job_released", "job_id": id}),
                    format!("job {id}: released for another worker"),
                )
                .await;
        }
        Verdict::Retry if deliveries >= ctx.max_deliveries => {
            dead_letter(&ctx, &msg, &raw, outcome).await
        }
        Verdict::Retry => {
            let _ = msg.ack_with(AckKind::Nak(Some(RETRY_DELAY))).await;
            let cause = outcome.cause.clone().unwrap_or_default();
            ctx.out.emit(json!({"kind": "job_retry", "job_id": id, "delivery": deliveries, "cause": cause}),
                format!("job {id}: {cause} on delivery {deliveries}; it will be redelivered")).await;
        }
    }
}

/// Whether the session `id` has a transcript to resume: in the store
/// (any worker's earlier attempt), or, when `redelivered`, in this
/// machine's CLI config folder (an attempt here that crashed before its
/// turn was mirrored: starting it again with `--session-id` would be
/// refused as a session in use).
async fn stored(ctx: &Ctx, job: &JobSpec, id: &str, redelivered: bool) -> Result<bool, String> {
    let key = SessionKey::new(job.tenant.clone(), id);
    let in_store = match tokio::time::timeout(ctx.timeout, ctx.store.load(&key)).await {
        Ok(Ok(entries)) => entries.is_some_and(|e| !e.is_empty()),
        Ok(Err(e)) => return Err(crate::store::with_causes(&e)),
        Err(_) => return Err("no answer".into()),
    };
    if in_store || !redelivered {
        return Ok(in_store);
    }
    let cwd = job
        .options
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    let file = format!("{id}.jsonl");
    tokio::task::spawn_blocking(move || {
        let config = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")));
        let cwd = cwd.or_else(|| std::env::current_dir().ok());
        match (config, cwd) {
            (Some(config), Some(cwd)) => config
                .join("projects")
                .join(project_key_for(&cwd))
                .join(file)
                .is_file(),
            _ => false,
        }
    })
    .await
    .map_err(|e| e.to_string())
}

/// Publishes the dead letter, records the outcome, terminates the job.
async fn dead_letter(ctx: &Ctx, msg: &Message, raw: &Value, mut outcome: JobOutcome) {
    outcome.dead_lettered = true;
    let letter = DeadLetter::new(raw.clone(), &outcome);
    if let Err(e) = retrying(ctx, || ctx.fleet.dead_letter(&letter)).await {
        let note = format!(
            "job {}: publishing its dead letter failed: {e}",
            outcome.job_id
        );
        return retry_later(ctx, msg, &note).await;
    }
    finish(ctx, msg, outcome, true).await;
}

/// Records the outcome, then acks (or terminates) the job; a job whose
/// outcome could not be recorded is left to be redelivered.
async fn finish(ctx: &Ctx, msg: &Message, outcome: JobOutcome, term: bool) {
    let id = outcome.job_id.clone();
    // `false`: an outcome was there already (this job id submitted again
    // after the dedup window, say), and stays the only one.
    let new = match retrying(ctx, || ctx.fleet.record(&outcome)).await {
        Ok(new) => new,
        Err(e) => {
            let note = format!("job {id}: recording its outcome failed: {e}");
            return retry_later(ctx, msg, &note).await;
        }
    };
    // Recorded: a lost ack only means the next worker finds it recorded.
    // Not confirmed (`double_ack`): a lost ack costs a redelivery that the
    // next worker settles by finding the outcome, not a round trip per job.
    let _ = msg
        .ack_with(if term { AckKind::Term } else { AckKind::Ack })
        .await;
    let status = if outcome.completed {
        "completed"
    } else {
        "failed"
    };
    let cause = outcome.cause.clone();
    let text = match &cause {
        Some(c) => format!(
            "job {id}: {status} ({c}{})",
            if outcome.dead_lettered {
                ", dead-lettered"
            } else {
                ""
            }
        ),
        None => format!("job {id}: {status}"),
    };
    let text = if new {
        text
    } else {
        format!("{text}; an earlier outcome was recorded and stays")
    };
    ctx.out
        .emit(
            json!({"kind": "job_recorded", "job_id": id, "completed": outcome.completed,
        "cause": cause, "dead_lettered": outcome.dead_lettered, "terminated": term,
        "mirror_persisted": outcome.mirror_persisted, "already_recorded": !new}),
            text,
        )
        .await;
}

/// A step failed in a way a later delivery may not (the server or the
/// store is away): says so and gives the job back after a short delay.
async fn retry_later(ctx: &Ctx, msg: &Message, note: &str) {
    ctx.out.note(note).await;
    let _ = msg.ack_with(AckKind::Nak(Some(RETRY_DELAY))).await;
}

/// Retries `op` until it succeeds or the ack wait has passed (a server
/// restart in between is ridden out).
async fn retrying<T, F, Fut>(ctx: &Ctx, mut op: F) -> Result<T, claude_agent::fleet::FleetError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, claude_agent::fleet::FleetError>>,
{
    let deadline = Instant::now() + ctx.ack_wait.max(Duration::from_secs(5));
    loop {
        match op().await {
            Ok(v) => return Ok(v),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => tokio::time::sleep(RECORD_RETRY).await,
        }
    }
}
