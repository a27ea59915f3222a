//! `-cape`: every region's fate on stderr (a refusal names its file, line and code) and the
//! summary line (the files are rewritten by the pipeline's CAPE step, `transforms::targets::cape`).

use crate::batch::Sink;
use crate::diag::Diag;
use analysis::ir::{Code, Severity};
use std::collections::BTreeMap;
use std::path::Path;
use transforms::pipeline::FileOutcome;

/// Counts the regions translated and refused, and the programs that start the runtime.
#[derive(Default)]
pub struct Cape {
    pub translated: usize,
    /// Refusals by code.
    pub refused: BTreeMap<Code, usize>,
    pub programs: usize,
}

impl Sink for Cape {
    fn file(&mut self, path: &Path, _rel: &Path, _text: &str, outcome: &FileOutcome, diag: &mut Diag) {
        let Some(c) = &outcome.cape else { return };
        let t = &c.translation;
        self.translated += t.translated.len();
        self.programs += usize::from(t.has_main);
        for r in &t.refused {
            *self.refused.entry(r.code).or_default() += 1;
            let at = format!("{}:{}", path.display(), r.line);
            let msg = format!("[{}] {}", r.code, r.message);
            match r.severity {
                Severity::Error => diag.error(Path::new(&at), msg),
                _ => diag.warning(Path::new(&at), msg),
            }
        }
    }
}

impl Cape {
    /// `CAPE: 3 regions translated, 1 left as plain OpenMP (PPO404 ×1); 2 programs start the
    /// CAPE runtime`.
    pub fn summary_line(&self) -> String {
        let refused: usize = self.refused.values().sum();
        let codes: Vec<String> = self.refused.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        format!(
            "CAPE: {} region{} translated, {} left as plain OpenMP{}; {} program{} start{} the CAPE runtime",
            self.translated,
            if self.translated == 1 { "" } else { "s" },
            refused,
            if codes.is_empty() { String::new() } else { format!(" ({})", codes.join(", ")) },
            self.programs,
            if self.programs == 1 { "" } else { "s" },
            if self.programs == 1 { "s" } else { "" },
        )
    }
}
