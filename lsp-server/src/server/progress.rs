//! Work-done progress of long commands (tuning, cluster runs, the log view) and messages to
//! the user.

use super::*;

impl Backend {
    pub(super) async fn progress_begin(
        &self,
        token: Option<ProgressToken>,
        title: &str,
    ) -> Option<ProgressToken> {
        let token = match token {
            Some(t) => t,
            None if read(&self.inner.flags).work_done_progress => {
                let t = ProgressToken::String(format!("ppo-{}", next_token()));
                let created = self
                    .client
                    .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: t.clone() })
                    .await;
                if created.is_err() {
                    return None;
                }
                t
            }
            None => return None,
        };
        self.progress(
            &token,
            WorkDoneProgress::Begin(WorkDoneProgressBegin {
                title: title.to_string(),
                cancellable: Some(false),
                message: None,
                percentage: Some(0),
            }),
        )
        .await;
        Some(token)
    }

    pub(super) async fn progress(&self, token: &ProgressToken, p: WorkDoneProgress) {
        self.client
            .send_notification::<Progress>(ProgressParams {
                token: token.clone(),
                value: ProgressParamsValue::WorkDone(p),
            })
            .await;
    }

    pub(super) async fn progress_report(
        &self,
        token: &Option<ProgressToken>,
        message: &str,
        percentage: u32,
    ) {
        if let Some(t) = token {
            self.progress(
                t,
                WorkDoneProgress::Report(WorkDoneProgressReport {
                    cancellable: Some(false),
                    message: Some(message.to_string()),
                    percentage: Some(percentage),
                }),
            )
            .await;
        }
    }

    pub(super) async fn progress_end(&self, token: Option<ProgressToken>, message: &str) {
        if let Some(t) = token {
            self.progress(
                &t,
                WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message.to_string()) }),
            )
            .await;
        }
    }
}

pub(super) fn next_token() -> u64 {
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}
