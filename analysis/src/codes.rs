//! Every check code ppo emits, in one registry: the code, its severity and title (as on its
//! page in `docs/checks/`), and where that page is. Diagnostics, verdict reasons and the
//! targets' refusals carry a [`Code`]; text and JSON show it as `PPO106`.
//!
//! A code is never reused or renumbered. A new one is a line below and a page whose first
//! line is `# PPOnnn — <title>` and whose **Severity:** line starts with the severity (the
//! page test in `cli/tests/it/check_pages.rs` checks both, and runs the page's examples).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// How serious a finding is. The front end's diagnostics use `note`, `warning` and
/// `error`; the registry also has `info` (a loop left sequential, a transformation not
/// applied) and `hint` (the language server's "this loop can run in parallel").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Hint,
    Note,
    Info,
    Warning,
    Error,
}

impl Severity {
    /// `error`, `warning`, `info`, `note`, `hint`: as in text output and on the pages.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Hint => "hint",
            Severity::Note => "note",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Declares [`Code`] and its tables from one list: `Variant = "PPOnnn", Severity, "title";`.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $severity:ident, $title:literal;)*) => {
        /// A stable check code (`PPO106`), with a page in `docs/checks/`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// `PPO106`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// The severity the code's page gives (a diagnostic may say otherwise: PPO306 is
            /// an error for a construct of `main`).
            pub const fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// The page's title, after the dash.
            pub const fn title(self) -> &'static str {
                match self {
                    $(Code::$variant => $title,)*
                }
            }

            /// The code's page, relative to the repository root (`docs/checks/PPO106.md`).
            pub const fn doc_page(self) -> &'static str {
                match self {
                    $(Code::$variant => concat!("docs/checks/", $code, ".md"),)*
                }
            }
        }
    };
}

registry! {
    // The preprocessor and the front end.
    /// An unbalanced or malformed `#if`/`#elif`/`#else`/`#endif`.
    PpConditional = "PPO001", Warning, "unbalanced or malformed preprocessor conditional";
    /// `#error` in an active region.
    PpError = "PPO002", Warning, "`#error` in an active region";
    /// A local header not found on the include path.
    HeaderNotFound = "PPO003", Warning, "local header not found";
    /// A function-like macro invoked with the wrong number of arguments.
    MacroArity = "PPO004", Warning, "macro invoked with the wrong number of arguments";
    /// A preprocessing limit reached (expansion work, nesting, header text): left unexpanded.
    PpLimit = "PPO005", Warning, "preprocessing limit reached";
    /// A region tree-sitter could not parse.
    SyntaxError = "PPO010", Error, "syntax error";
    /// A valid construct the analyses do not model (treated as opaque).
    OpaqueConstruct = "PPO011", Note, "construct treated as opaque";

    // Why a loop stays sequential (the parallelization verdicts).
    /// Loop-carried flow (true) dependence on an array.
    FlowDep = "PPO101", Info, "loop-carried flow dependence on an array";
    /// Loop-carried anti dependence on an array.
    AntiDep = "PPO102", Info, "loop-carried anti dependence on an array";
    /// Loop-carried output dependence on an array.
    OutputDep = "PPO103", Info, "loop-carried output dependence on an array";
    /// A write through a subscript the analysis cannot follow (`a[idx[i]] = …`, `a[i*i]`).
    UnknownWrite = "PPO104", Info, "write through a subscript the analysis cannot follow";
    /// Pointers that may alias (no `restrict`, not provably distinct).
    MayAlias = "PPO105", Info, "pointers that may alias";
    /// A scalar carries a value from one iteration to the next (not private, not a reduction).
    ScalarDep = "PPO106", Info, "scalar loop-carried dependence";
    /// A call with side effects (I/O, writes to globals or shared memory, unknown function).
    ImpureCall = "PPO107", Info, "call with side effects";
    /// `break`, `return`, `goto` out of the loop, `exit()`.
    EarlyExit = "PPO108", Info, "early exit from the loop";
    /// Not a canonical counted `for` loop (OpenMP needs `for (i = a; i < b; i += c)`).
    NotCanonical = "PPO109", Info, "not a canonical loop";
    /// Inline asm, statement expressions or code with syntax errors in the loop.
    OpaqueLoop = "PPO110", Info, "opaque code in the loop";
    /// An induction variable updated inside the body (`k += 2`) that is not rewritten.
    DerivedIv = "PPO111", Info, "derived induction variable";
    /// Parallel but not worth it: small constant trip count or almost no work.
    NotProfitable = "PPO112", Info, "parallel but not profitable";
    /// Parallel, but inside a loop that is parallelized (no nested parallel regions).
    InnerOfParallel = "PPO113", Info, "inner loop of a parallelized nest";
    /// A loop proven parallel where no directive could be placed.
    NotPlaced = "PPO114", Warning, "directive not placed";

    // The user's own OpenMP directives.
    /// A user's `parallel for` on a loop that is not parallel: a proven dependence.
    Race = "PPO120", Warning, "user directive on a loop that is not parallel";
    /// A user's `parallel for` that misses a data-sharing clause the loop needs.
    MissingClause = "PPO121", Warning, "user directive misses a data-sharing clause";
    /// A user's directive the analysis cannot verify (pointers, calls, subscripts it cannot
    /// follow): a note, never a warning.
    Unverified = "PPO122", Note, "user directive the analysis cannot verify";
    /// Every thread of a user's `#pragma omp parallel` region writes one shared place.
    RegionRace = "PPO123", Warning, "every thread of a parallel region writes one shared place";
    /// Two sections of a `sections` construct access one shared place, one writing it.
    SectionsRace = "PPO124", Warning, "two sections access one shared place, one writing it";
    /// The language server's hint on a loop ppo would parallelize.
    Parallelizable = "PPO130", Hint, "loop can run in parallel";
    /// Tuning: a measured parallel version changed the program's output.
    OutputChanged = "PPO131", Note, "a measured parallel version changed the program's output";

    // Fusion, fission and index-set splitting (OS).
    /// A dependence between the loops would run backwards after fusion, whatever the shift.
    FusionDepReversed = "PPO201", Info, "fusion would reverse a dependence";
    /// The loop headers are not compatible (steps, bounds that differ by a non-constant).
    FusionHeaders = "PPO202", Info, "loop headers not compatible for fusion";
    /// A scalar carries a value from one loop to the other.
    FusionScalarFlow = "PPO203", Info, "a scalar carries a value between the loops";
    /// A statement between the loops touches their data and cannot be moved.
    FusionBetween = "PPO204", Info, "a statement between the loops cannot be moved";
    /// Dependences between the loops cannot be tested (non-affine subscripts, aliasing).
    FusionUntestable = "PPO205", Info, "dependences between the loops cannot be tested";
    /// The loop cannot be restructured (early exit, `continue`, impure call, opaque code, user
    /// directive, not a counted `for` loop).
    NotRestructurable = "PPO206", Info, "the loop cannot be restructured";
    /// The final value of an index the transformation renames or shifts is used afterwards, or
    /// renaming would capture another variable.
    IndexLive = "PPO207", Info, "the loop index after the transformation would differ";
    /// The interchange that would align the nest with its neighbour is illegal.
    AlignInterchange = "PPO208", Info, "the interchange that would align the nests is illegal";
    /// Every statement of the loop is in one dependence cycle: nothing to distribute.
    FissionOneComponent = "PPO210", Info, "nothing to distribute: one dependence cycle";
    /// Scalars carry values between the statements (distribution would need scalar expansion).
    FissionScalarTies = "PPO211", Info, "scalars tie the statements together";
    /// Index-set splitting is not possible (the bound is not loop-invariant and affine, the
    /// step is not 1, the condition is always true or false).
    NoSplit = "PPO215", Info, "the loop's range cannot be split at the test";

    // Unrolling, interchange, hoisting, CSE, strength reduction (OS).
    /// Unrolling: not a canonical counted `for` loop (or one whose clauses do more than count).
    UnrollNotCanonical = "PPO220", Info, "not a canonical counted `for` loop (unrolling)";
    /// Unrolling: the body leaves the loop or skips to the next iteration.
    UnrollExits = "PPO221", Info, "the body leaves the loop or skips iterations (unrolling)";
    /// Unrolling: the body cannot be copied (labels, static locals, preprocessor lines, the
    /// index written, address taken or used inside a macro, an empty body).
    UnrollNotCopyable = "PPO222", Info, "the body cannot be copied (unrolling)";
    /// Unrolling: the trip count does not allow it (at most one iteration, bounds not known).
    UnrollTripCount = "PPO223", Info, "the trip count does not allow unrolling";
    /// The loop, a loop around it or a loop it contains carries an OpenMP directive.
    HasDirective = "PPO224", Info, "the loop carries an OpenMP directive";
    /// Interchange: not a perfectly nested pair of counted `for` loops.
    NotPerfect = "PPO225", Info, "not a perfectly nested pair of counted loops (interchange)";
    /// Interchange: the inner bounds depend on the outer index (triangular nest).
    NotRectangular = "PPO226", Info, "triangular nest (interchange)";
    /// Interchange: a dependence would be reversed (direction (<, >)) or cannot be bounded.
    InterchangeDependence = "PPO227", Info, "a dependence forbids interchange";
    /// Interchange: the order of the iterations shows (scalars carried across iterations,
    /// calls, exits, indices used after the nest).
    OrderVisible = "PPO228", Info, "the order of the iterations shows (interchange)";
    /// The source cannot be rewritten there (macro expansion, a loop that does not start its
    /// line, a statement that is not in a block).
    NotEditable = "PPO229", Info, "the source cannot be rewritten there";
    /// Hoisting: the expression may fault and might not be evaluated by the original loop.
    MayFault = "PPO230", Info, "the hoisted expression may fault";
    /// Hoisting, CSE, strength reduction: no C type can be written for the temporary.
    NoTempType = "PPO231", Info, "no type for the temporary";
    /// CSE: computing the value once before its statement is not proven equivalent.
    CseUnsafe = "PPO232", Info, "the common subexpression cannot be computed once";
    /// Strength reduction: the product is not the loop index times an integer factor, or
    /// the loop is not one whose step can carry the running value.
    SrNotApplicable = "PPO233", Info, "strength reduction does not apply";

    // The TBB target.
    /// A clause of the loop's verdict that the TBB translation does not express
    /// (`lastprivate(conditional:)`, `linear`, a run-time `if`, …): the loop stays sequential.
    TbbClause = "PPO240", Info, "clause not translated to TBB";
    /// A reduction TBB code is not generated for (array reductions, unknown operators).
    TbbReduction = "PPO241", Info, "reduction not translated to TBB";
    /// A loop header the translation cannot map to a range (non-integer index, non-constant
    /// step, header produced by a macro, …).
    TbbHeader = "PPO242", Info, "loop header not mapped to a TBB range";
    /// A private, firstprivate or lastprivate variable that cannot be copied into the lambda
    /// (a variable-length array, the index of a collapsed inner loop used after the nest).
    TbbPrivate = "PPO243", Info, "variable that cannot be copied into the TBB lambda";
    /// The file is not valid C++ and cannot be converted (the construct and line are named).
    NotCxx = "PPO244", Error, "file not valid C++ and not converted";
    /// The loop already has the user's OpenMP directive, or sits in a header: not translated.
    TbbKept = "PPO245", Info, "loop kept as written by the TBB target";
    /// A C→C++ conversion applied (a cast, a rename, a parameter rewrite): a note.
    CxxConverted = "PPO246", Note, "C→C++ conversion applied";

    // The MPI target.
    /// A malformed or misplaced directive: the file is not generated.
    MpiDirective = "PPO300", Error, "malformed or misplaced MPI directive";
    /// A DOALL directive on a loop with a dependence: refused with the evidence.
    MpiDependence = "PPO301", Warning, "DOALL directive on a loop with a dependence";
    /// A write that is not to the iteration's own row (indirect `a[idx[i]]`, shifted, every
    /// iteration's, through a call).
    MpiWrite = "PPO302", Warning, "write outside the iteration's own row";
    /// Memory ppo cannot trace to one named array (pointers of unknown origin, structs of
    /// pointers, dereferences): unresolved aliasing.
    MpiAlias = "PPO303", Warning, "unresolved aliasing";
    /// I/O (or a call with unknown effects) inside a DOALL.
    MpiIo = "PPO304", Warning, "I/O inside a DOALL loop";
    /// An early exit (break, return, goto, exit) inside a DOALL.
    MpiExit = "PPO305", Warning, "early exit from a DOALL loop";
    /// A loop shape, clause or partition the generator does not handle (lastprivate, array
    /// reductions, non-contiguous rows with CYC, a non-constant step, …), or a construct of
    /// `main` it cannot distribute.
    MpiUnsupported = "PPO306", Warning, "construct the MPI generator does not handle";
    /// A parallel loop outside `main`: stays sequential (DOALLs are generated in main).
    MpiOutsideMain = "PPO307", Info, "parallel loop outside `main`";
    /// A `DD` distance smaller than the distance the loop reads.
    MpiDd = "PPO308", Warning, "data distance larger than the `DD` directive says";
    /// Note: a DOALL generated with the global model (a row read by every iteration broadcast
    /// from its owner).
    MpiGlobal = "PPO309", Note, "DOALL generated with the global model";

    // The CAPE target.
    /// An OpenMP construct inside a region that CAPE cannot run across nodes (`critical`,
    /// `atomic`, `ordered`, tasks, locks, `flush`, …): the region stays plain OpenMP.
    CapeConstruct = "PPO400", Warning, "OpenMP construct CAPE cannot run across nodes";
    /// A clause the translator does not support (`linear`, `ordered`, `copyprivate`,
    /// `allocate`, array or user-defined reductions, reduction modifiers): the region stays
    /// plain OpenMP.
    CapeClause = "PPO401", Warning, "clause the CAPE translator does not support";
    /// A worksharing loop not in the canonical form the translator distributes.
    CapeLoop = "PPO402", Warning, "worksharing loop not in the canonical form CAPE distributes";
    /// The analysis proves the loop breaks Bernstein's conditions (two iterations write the
    /// same location, not as a reduction): refused, an error.
    CapeBernstein = "PPO403", Error, "region that breaks Bernstein's conditions";
    /// Input or output inside a region (each node would print its share, and only node 0's
    /// output is kept): the region stays plain OpenMP.
    CapeIo = "PPO404", Warning, "input or output inside a CAPE region";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of ppo's check codes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a ppo check code (see docs/checks/README.md)")]
pub struct UnknownCode(pub String);

impl FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        Code::ALL.iter().copied().find(|c| c.as_str() == s).ok_or_else(|| UnknownCode(s.to_string()))
    }
}

/// Serialized as its string (`"PPO106"`), as the JSON reports always showed it.
impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_parse_back() {
        // Declaration order (the derived `Ord`) is the order of the strings: summaries count
        // codes in a `BTreeMap<Code, _>` and print them in that order.
        for w in Code::ALL.windows(2) {
            assert!(w[0].as_str() < w[1].as_str(), "{} before {}", w[0], w[1]);
        }
        for &c in Code::ALL {
            assert_eq!(c.as_str().parse::<Code>(), Ok(c));
            assert_eq!(c.doc_page(), format!("docs/checks/{c}.md"));
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<Code>(&format!("\"{c}\"")).unwrap(), c);
        }
        assert_eq!("PPO999".parse::<Code>(), Err(UnknownCode("PPO999".into())));
        assert!(serde_json::from_str::<Code>("\"ppo106\"").is_err());
    }
}
