//! The action registry: what the editor may do to the code, as code actions.
//!
//! An [`ActionProvider`] looks at one analysis and the loops the request is about and
//! returns [`Offer`]s: an action (a title, a kind and edits, byte ranges of the analysed
//! text, computed by the pipeline) or a refusal with the reason. Actions become
//! `textDocument/codeAction` results; refusals are never offered as actions but explained in
//! the loop's hover and `ppo.explainLoop`.
//!
//! Adding an action (MPI, CAPE, …) is one type implementing [`ActionProvider`] plus one line
//! in [`ActionRegistry::standard`].

use crate::engine::{target_title, Analysis, Facts};
use analysis::codes::Code;
use analysis::report::api::{FunctionReport, LoopReport};
use std::sync::Arc;
use tower_lsp::lsp_types::CodeActionKind;
use transforms::edit::Edit;
use transforms::os::Outcome;
use transforms::pipeline::Target;

/// What a provider sees.
pub struct ActionContext<'a> {
    pub analysis: &'a Analysis,
    pub facts: &'a Facts,
    /// The loops the request is about (those whose header the range touches), outermost
    /// first. Empty when the cursor is on no loop header.
    pub loops: Vec<(&'a FunctionReport, &'a LoopReport)>,
    /// The client applies edits that create files (`workspaceEdit.resourceOperations`).
    pub can_create_files: bool,
}

/// An action offered to the user.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub title: String,
    pub kind: CodeActionKind,
    /// Byte ranges of the analysed text and their replacements.
    pub edits: Vec<Edit>,
    /// Or a file to create (or overwrite) beside the document, with this text.
    pub new_file: Option<NewFile>,
    /// The loop it is about: its diagnostics are attached to the action (a quick fix).
    pub loop_id: Option<String>,
    pub preferred: bool,
}

/// A file an action writes beside the document (the TBB target's `NAME.cpp`).
#[derive(Clone, Debug, PartialEq)]
pub struct NewFile {
    /// The file name, in the document's directory.
    pub name: String,
    pub text: String,
}

/// A provider's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    Action(Action),
    /// Not offered: `title` names what was refused, `reason` says why (shown in the hover).
    Refused {
        loop_id: Option<String>,
        title: String,
        reason: String,
    },
}

pub trait ActionProvider: Send + Sync {
    /// Stable name (the `ppo.` suffix of the action kinds it uses, in the log).
    fn name(&self) -> &'static str;
    /// The offers for this request. Pure and fast: it runs on every code-action request.
    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer>;
}

/// The providers, in the order their actions are listed.
#[derive(Clone)]
pub struct ActionRegistry {
    providers: Vec<Arc<dyn ActionProvider>>,
}

impl ActionRegistry {
    pub fn empty() -> ActionRegistry {
        ActionRegistry { providers: Vec::new() }
    }

    /// Parallelize this loop, parallelize the file, every OS proposal for the loop.
    pub fn standard() -> ActionRegistry {
        let mut r = ActionRegistry::empty();
        r.register(Arc::new(ParallelizeLoop));
        r.register(Arc::new(ParallelizeFile));
        r.register(Arc::new(Transformations));
        r.register(Arc::new(MpiVersion));
        r.register(Arc::new(CapeVersion));
        r
    }

    pub fn register(&mut self, p: Arc<dyn ActionProvider>) -> &mut ActionRegistry {
        self.providers.push(p);
        self
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.providers.iter().map(|p| p.name()).collect()
    }

    /// Every provider's offers, in registry order.
    pub fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        self.providers.iter().flat_map(|p| p.offers(cx)).collect()
    }
}

impl std::fmt::Debug for ActionRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// `quickfix` (the lightbulb of a PPO130 hint).
pub fn kind_parallelize_loop() -> CodeActionKind {
    CodeActionKind::QUICKFIX
}

/// `source.ppo.parallelize`: a source action on the whole file.
pub fn kind_parallelize_file() -> CodeActionKind {
    CodeActionKind::from("source.ppo.parallelize")
}

/// `source.ppo.mpi`: a source action writing the file's MPI version beside it.
pub fn kind_mpi_version() -> CodeActionKind {
    CodeActionKind::from("source.ppo.mpi")
}

/// `source.ppo.cape`: a source action writing the file's CAPE version beside it.
pub fn kind_cape_version() -> CodeActionKind {
    CodeActionKind::from("source.ppo.cape")
}

/// `refactor.rewrite.ppo.NAME` for the OS transformation NAME.
pub fn kind_transformation(name: &str) -> CodeActionKind {
    CodeActionKind::from(format!("refactor.rewrite.ppo.{name}"))
}

/// Why the loop gets no directive from PS, when it does not.
pub fn why_not_parallelized(facts: &Facts, l: &LoopReport) -> Option<String> {
    if let Some(t) = &facts.target_refused {
        return Some(t.clone());
    }
    let ps = facts.outcome.ps.as_ref()?;
    if ps.placed.iter().any(|p| p.loop_id == l.id) {
        return None;
    }
    if let Some(s) = ps.skipped.iter().find(|s| s.loop_id == l.id) {
        // The code of the refusal: PPO114 (OpenMP), PPO24x (TBB, in the PS event).
        let code = ps
            .events
            .iter()
            .find(|e| e.loop_id.as_deref() == Some(l.id.as_str()) && e.code.is_some())
            .and_then(|e| e.code)
            .unwrap_or(Code::NotPlaced);
        return Some(if s.user_directive {
            format!("{} (kept as written and checked: see PPO120/PPO121)", s.why)
        } else {
            format!("{} [{code}]", s.why)
        });
    }
    let v = &l.parallel;
    let reasons = dedup(v.reasons.iter().map(|r| format!("{} {}", r.code, r.brief)).collect());
    let first = match reasons.len() {
        0 => String::new(),
        1 => format!(": {}", reasons[0]),
        n => format!(": {} (+{} more)", reasons[0], n - 1),
    };
    Some(if v.legal { format!("parallel, but not annotated{first}") } else { format!("sequential{first}") })
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
    v
}

/// *Parallelize loop (OpenMP)*: the directive PS inserts for this loop.
pub struct ParallelizeLoop;

impl ActionProvider for ParallelizeLoop {
    fn name(&self) -> &'static str {
        "parallelize"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let title = format!("Parallelize loop ({})", target_title(cx.analysis.settings.target));
        let mut out = Vec::new();
        for (fr, l) in &cx.loops {
            match why_not_parallelized(cx.facts, l) {
                None => {
                    let ps = cx.facts.outcome.ps.as_ref();
                    let Some(p) = ps.and_then(|ps| ps.placed.iter().find(|p| p.loop_id == l.id)) else {
                        continue;
                    };
                    if cx.analysis.settings.target != Target::OpenMp {
                        // TBB output is C++ with the file's conversions: a file of its own.
                        out.push(Offer::Refused {
                            loop_id: Some(l.id.clone()),
                            title: title.clone(),
                            reason: format!(
                                "the {} target writes C++ ({}): use Parallelize file",
                                target_title(cx.analysis.settings.target),
                                cpp_name(&cx.analysis.path)
                            ),
                        });
                        continue;
                    }
                    // A worksharing loop of a hoisted region comes with the region and the
                    // region's other loops: alone, `omp for` would run on one thread.
                    let region = fr.host_of(&l.id).and_then(|(h, hr)| {
                        ps.and_then(|ps| ps.regions.iter().find(|r| r.loop_id == h.id)).map(|r| (r, hr))
                    });
                    let (what, edits) = match region {
                        Some((r, hr)) => {
                            let mut edits = vec![r.edit.clone()];
                            edits.extend(r.inner.iter().cloned());
                            edits.extend(
                                ps.into_iter()
                                    .flat_map(|ps| &ps.placed)
                                    .filter(|q| hr.members.contains(&q.loop_id))
                                    .map(|q| q.edit.clone()),
                            );
                            (format!("{} around {}, {} here", r.directive, r.loop_id, p.directive), edits)
                        }
                        None => (p.directive.clone(), vec![p.edit.clone()]),
                    };
                    out.push(Offer::Action(Action {
                        title: match p.compiled_if {
                            Some(g) => format!("{title}: {what} ({} only)", g.label()),
                            None => format!("{title}: {what}"),
                        },
                        kind: kind_parallelize_loop(),
                        edits,
                        new_file: None,
                        loop_id: Some(l.id.clone()),
                        preferred: true,
                    }));
                }
                Some(reason) => {
                    out.push(Offer::Refused { loop_id: Some(l.id.clone()), title: title.clone(), reason })
                }
            }
        }
        out
    }
}

/// *Parallelize file (OpenMP)*: every directive PS inserts in the file (what `ppo -omp`
/// writes).
pub struct ParallelizeFile;

impl ActionProvider for ParallelizeFile {
    fn name(&self) -> &'static str {
        "parallelize-file"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let title = format!("Parallelize file ({})", target_title(cx.analysis.settings.target));
        if let Some(t) = &cx.facts.target_refused {
            return vec![Offer::Refused { loop_id: None, title, reason: t.clone() }];
        }
        let edits = cx.facts.outcome.edits.clone();
        let loops = cx.facts.outcome.ps.as_ref().map_or(0, |p| p.placed.len());
        if edits.is_empty() || loops == 0 {
            return vec![Offer::Refused { loop_id: None, title, reason: "no loop to parallelize".into() }];
        }
        let plural = if loops == 1 { "" } else { "s" };
        if cx.analysis.settings.target != Target::OpenMp {
            let name = cpp_name(&cx.analysis.path);
            let Some(text) = cx.facts.outcome.new_text.clone() else {
                return vec![Offer::Refused {
                    loop_id: None,
                    title,
                    reason: "the edits do not apply".into(),
                }];
            };
            if !cx.can_create_files {
                return vec![Offer::Refused {
                    loop_id: None,
                    title,
                    reason: format!("it writes {name}, and the editor does not create files (workspaceEdit.resourceOperations)"),
                }];
            }
            return vec![Offer::Action(Action {
                title: format!("{title}: write {name} ({loops} loop{plural})"),
                kind: kind_parallelize_file(),
                edits: Vec::new(),
                new_file: Some(NewFile { name, text }),
                loop_id: None,
                preferred: false,
            })];
        }
        vec![Offer::Action(Action {
            title: format!("{title}: {loops} loop{plural}"),
            kind: kind_parallelize_file(),
            edits,
            new_file: None,
            loop_id: None,
            preferred: false,
        })]
    }
}

/// The C++ file the TBB target writes for `path`: `NAME.cpp`, as `ppo -tbb`.
pub fn cpp_name(path: &std::path::Path) -> String {
    path.with_extension("cpp")
        .file_name()
        .map_or_else(|| "untitled.cpp".into(), |n| n.to_string_lossy().into_owned())
}

/// The MPI program `ppo -mpi` writes for `path`, as a new file beside it: `NAME_mpi.c`.
pub fn mpi_name(path: &std::path::Path) -> String {
    let stem = path.file_stem().map_or_else(|| "untitled".into(), |n| n.to_string_lossy().into_owned());
    format!("{stem}_mpi.c")
}

/// *Generate MPI version*: the file as `ppo -mpi` writes it (DMCG directives or the loops
/// proven parallel in `main`), as `NAME_mpi.c` beside the document; offered for programs
/// (files with `main`) whatever the configured target, once per file (not per loop).
pub struct MpiVersion;

impl ActionProvider for MpiVersion {
    fn name(&self) -> &'static str {
        "mpi"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        new_program_offer(
            cx,
            "Generate MPI version",
            mpi_name(&cx.analysis.path),
            kind_mpi_version(),
            cx.facts.mpi(),
            |n| format!("{n} DOALL loop{}", if n == 1 { "" } else { "s" }),
        )
    }
}

/// The offer of a program written beside the document (`title: write NAME (what)`), or why
/// not; nothing for a file without `main`.
fn new_program_offer(
    cx: &ActionContext<'_>,
    title: &str,
    name: String,
    kind: CodeActionKind,
    made: &Result<(String, usize), String>,
    what: impl Fn(usize) -> String,
) -> Vec<Offer> {
    let title = title.to_string();
    if !cx.facts.report().functions.iter().any(|f| f.name == "main") {
        return Vec::new();
    }
    match made {
        Err(reason) => vec![Offer::Refused { loop_id: None, title, reason: reason.clone() }],
        Ok(_) if !cx.can_create_files => vec![Offer::Refused {
            loop_id: None,
            title,
            reason: format!(
                "it writes {name}, and the editor does not create files (workspaceEdit.resourceOperations)"
            ),
        }],
        Ok((text, n)) => vec![Offer::Action(Action {
            title: format!("{title}: write {name} ({})", what(*n)),
            kind,
            edits: Vec::new(),
            new_file: Some(NewFile { name, text: text.clone() }),
            loop_id: None,
            preferred: false,
        })],
    }
}

/// The CAPE program `ppo -cape` writes for `path`, as a new file beside it: `NAME_cape.c`.
pub fn cape_name(path: &std::path::Path) -> String {
    let stem = path.file_stem().map_or_else(|| "untitled".into(), |n| n.to_string_lossy().into_owned());
    format!("{stem}_cape.c")
}

/// *Generate CAPE version*: the program as `ppo -cape` writes it (run it on a cluster with
/// *Run on cluster* or `ppo run --backend cape`), as `NAME_cape.c` beside the document;
/// offered for programs, once per file.
pub struct CapeVersion;

impl ActionProvider for CapeVersion {
    fn name(&self) -> &'static str {
        "cape"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        new_program_offer(
            cx,
            "Generate CAPE version",
            cape_name(&cx.analysis.path),
            kind_cape_version(),
            cx.facts.cape(),
            |n| format!("{n} region{} distributed among the nodes", if n == 1 { "" } else { "s" }),
        )
    }
}

/// Every proposal of the OS registry (fusion, unrolling, …) that names a loop of the
/// request; every refusal of one as its reason.
pub struct Transformations;

impl ActionProvider for Transformations {
    fn name(&self) -> &'static str {
        "transformations"
    }

    fn offers(&self, cx: &ActionContext<'_>) -> Vec<Offer> {
        let mut out = Vec::new();
        for (_, l) in &cx.loops {
            let os = cx.facts.os();
            for (name, o) in &os.outcomes {
                match o {
                    Outcome::Proposal(p) if p.loops.iter().any(|r| r.id == l.id) => {
                        // Offered only if its edits apply to the text.
                        if transforms::edit::apply(&cx.analysis.text, &p.edits).is_none() {
                            out.push(Offer::Refused {
                                loop_id: Some(l.id.clone()),
                                title: format!("{name}: {}", p.title),
                                reason: "its edits overlap or lie outside the file".into(),
                            });
                            continue;
                        }
                        out.push(Offer::Action(Action {
                            title: format!("{}: {}", capitalize(name), p.title),
                            kind: kind_transformation(name),
                            edits: p.edits.clone(),
                            new_file: None,
                            loop_id: Some(l.id.clone()),
                            preferred: false,
                        }));
                    }
                    Outcome::Refusal(r) if r.loops.iter().any(|x| x.id == l.id) => out.push(Offer::Refused {
                        loop_id: Some(l.id.clone()),
                        title: name.to_string(),
                        reason: match r.code {
                            Some(c) => format!("{} [{c}]", r.reason),
                            None => r.reason.clone(),
                        },
                    }),
                    _ => {}
                }
            }
            for (name, msg) in &os.failures {
                out.push(Offer::Refused {
                    loop_id: Some(l.id.clone()),
                    title: name.to_string(),
                    reason: format!("internal error: {msg}"),
                });
            }
        }
        out
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
