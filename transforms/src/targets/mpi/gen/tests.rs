use super::doall::{distributed_sharing, trip_count};
use super::emit::{index_value, prelude_point};
use super::location::{AState, PartKey};
use crate::targets::test_support::verdict;
use analysis::codes::Code;
use analysis::ir::TranslationUnit;
use analysis::parallel::sharing::{DataSharing, ReductionVar};

#[test]
fn typed_verdicts_give_the_ranks_their_sharing() {
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let s = DataSharing {
        private: names(&["j", "t"]),
        firstprivate: names(&["x"]),
        reductions: vec![
            ("+".into(), vec![ReductionVar::whole("s"), ReductionVar::whole("u")]),
            ("max".into(), vec![ReductionVar::whole("m")]),
        ],
        ..DataSharing::default()
    };
    let r = distributed_sharing(&verdict(s.clone(), None)).unwrap();
    assert_eq!(r.private, names(&["j", "t", "x"]).into_iter().collect());
    assert_eq!(
        r.reductions,
        [("s", "+"), ("u", "+"), ("m", "max")].map(|(v, op)| (v.to_string(), op.to_string())).to_vec()
    );
    // A value of the last iteration, or a linear one, is refused with the directive's clauses.
    for (last, want) in [
        (DataSharing { lastprivate: names(&["i"]), ..s.clone() }, "lastprivate(i)"),
        (DataSharing { lastprivate_conditional: names(&["y"]), ..s.clone() }, "lastprivate(conditional: y)"),
        (DataSharing { linear: vec![("k".into(), 3)], ..s.clone() }, "linear(k:3)"),
    ] {
        let (code, why) = distributed_sharing(&verdict(last, None)).unwrap_err();
        assert_eq!(code, Code::MpiUnsupported);
        assert!(
            why.contains(want)
                && why.ends_with("a value of the last iteration stays on the rank that ran it"),
            "{why}"
        );
    }
    let section = DataSharing {
        reductions: vec![("+".into(), vec![ReductionVar { name: "h".into(), section: Some(64) }])],
        ..DataSharing::default()
    };
    assert_eq!(
        distributed_sharing(&verdict(section, None)).unwrap_err(),
        (Code::MpiUnsupported, "array reduction `h[0:64]`".to_string())
    );
}

#[test]
fn normalization_trip_counts_and_indices() {
    assert_eq!(trip_count("<", "0", "n", 1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
    assert_eq!(trip_count("<=", "2", "n", 1).unwrap(), "((long long)(n) >= 2 ? (long long)(n) - 2 + 1 : 0)");
    assert_eq!(
        trip_count("<", "1", "n - 1", 3).unwrap(),
        "((long long)(n - 1) > 1 ? ((long long)(n - 1) - 1 + 2) / 3 : 0)"
    );
    assert_eq!(
        trip_count(">=", "n", "0", -2).unwrap(),
        "((long long)(n) >= 0 ? ((long long)(n)) / 2 + 1 : 0)"
    );
    assert_eq!(trip_count(">", "n", "0", -1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
    assert_eq!(trip_count("!=", "0", "n", 1).unwrap(), "((long long)(n) > 0 ? (long long)(n) : 0)");
    assert!(trip_count("!=", "0", "n", 2).is_none());
    assert!(trip_count("<", "0", "n", -1).is_none());
    assert_eq!(index_value("0", "ppo_k", 1), "ppo_k");
    assert_eq!(index_value("n - 1", "ppo_k", -1), "(n - 1) + ppo_k * -1");
    assert_eq!(index_value("2", "ppo_k", 2), "(2) + ppo_k * 2");
}

#[test]
fn prelude_goes_after_comments_and_feature_macros() {
    let t = "/* head\n * more */\n#define _POSIX_C_SOURCE 200809L\n\n#include <stdio.h>\n#define n 100\nint main(void) { return 0; }\n";
    let at = prelude_point(t, &TranslationUnit::default()) as usize;
    assert!(t[at..].starts_with("#include <stdio.h>"), "{}", &t[at..]);
    assert_eq!(prelude_point("int x;\n", &TranslationUnit::default()), 0);
}

#[test]
fn states_meet_and_cover() {
    let p = PartKey { first: "0".into(), n: "n".into(), row: "8".into() };
    let parts = AState { all: false, root: false, parts: Some(p.clone()), ext_all: true, ext_root: true };
    let root = AState::root_only();
    assert!(AState::everywhere().covers(&parts) && AState::everywhere().covers(&root));
    assert!(!root.covers(&parts) && !parts.covers(&root));
    let m = root.meet(&parts);
    assert!(!m.all && !m.root && m.parts.is_none(), "{m:?}");
    let m = AState::everywhere().meet(&parts);
    assert_eq!(m.parts, Some(p));
    assert!(m.ext_all && !m.root);
}
