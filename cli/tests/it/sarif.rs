//! `--report-format sarif`: `ppo analyze` and the batch mode's `--report` write SARIF 2.1.0
//! that the OASIS schema accepts, with one result per diagnostic and per reason of the JSON
//! report, in the same order, and the check-code registry as the rules.
//!
//! `fixtures/sarif-schema-2.1.0.json` is `sarif-2.1/schema/sarif-schema-2.1.0.json` of
//! github.com/oasis-tcs/sarif-spec (commit e0583813964ec43cea53b6b531b402866095ed1f).

use crate::common::*;
use analysis::codes::Code;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn schema_errors(sarif: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    validator.iter_errors(sarif).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

fn validate(sarif: &Value) {
    let errors = schema_errors(sarif);
    assert!(errors.is_empty(), "not valid SARIF 2.1.0:\n{}", errors.join("\n"));
}

/// The validation is not vacuous: a level SARIF does not have, or a 0 line, is refused.
#[test]
fn the_schema_refuses_what_is_not_sarif() {
    let t = tempfile::tempdir().unwrap();
    let f = write(
        t.path(),
        "a.c",
        "void f(int n, double *a) {\n  for (int i = 1; i < n; i++)\n    a[i] = a[i - 1];\n}\n",
    );
    let r = ppo(&["analyze".as_ref(), "--report-format".as_ref(), "sarif".as_ref(), f.as_os_str()]);
    let good: Value = serde_json::from_str(&r.stdout).unwrap();
    validate(&good);
    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["level"] = "info".into();
    assert!(!schema_errors(&bad).is_empty());
    let mut bad = good;
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert!(!schema_errors(&bad).is_empty());
}

/// The run's rules are the registry, and every result names its rule by id and index.
fn check_rules(run: &Value) {
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), Code::ALL.len());
    for (r, c) in rules.iter().zip(Code::ALL) {
        assert_eq!(r["id"], c.as_str());
        assert_eq!(r["shortDescription"]["text"], c.title());
        assert!(r["helpUri"].as_str().unwrap().ends_with(&format!("/docs/checks/{c}.md")), "{r}");
    }
    for res in run["results"].as_array().unwrap() {
        let i = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], res["ruleId"]);
        let region = &res["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1 && region["startColumn"].as_u64().unwrap() >= 1);
    }
}

fn rule_ids(run: &Value) -> Vec<String> {
    run["results"].as_array().unwrap().iter().map(|r| r["ruleId"].as_str().unwrap().to_string()).collect()
}

#[test]
fn analyze_writes_valid_sarif_with_the_reports_findings() {
    let file = root().join("corpus/deps/alias.c");
    let json = ppo(&["analyze".as_ref(), "--json".as_ref(), file.as_os_str()]);
    json.assert_code(0);
    let json: Value = serde_json::from_str(&json.stdout).unwrap();
    let r = ppo(&["analyze".as_ref(), "--report-format".as_ref(), "sarif".as_ref(), file.as_os_str()]);
    r.assert_code(0).assert_no_panic();
    let sarif: Value = serde_json::from_str(&r.stdout).unwrap();
    validate(&sarif);
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ppo");
    check_rules(run);
    let mut want: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    for f in json["functions"].as_array().unwrap() {
        for l in f["loops"].as_array().unwrap() {
            want.extend(
                l["parallel"]["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["code"].as_str().unwrap().to_string()),
            );
        }
    }
    assert!(want.len() >= 2, "{want:?}");
    assert_eq!(rule_ids(run), want);
    // An absolute path: the file relative to its own directory.
    let loc = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "alias.c");
    assert!(run["originalUriBaseIds"]["SRCROOT"]["uri"].as_str().unwrap().ends_with("/corpus/deps/"));
}

#[test]
fn a_diagnostic_keeps_its_level_and_place() {
    let t = tempfile::tempdir().unwrap();
    let f = write(
        t.path(),
        "sub dir/bad.c",
        "int f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++ { s += i; }\n  return s;\n}\n",
    );
    let r = ppo(&["analyze".as_ref(), "--report-format=sarif".as_ref(), f.as_os_str()]);
    r.assert_code(0);
    let sarif: Value = serde_json::from_str(&r.stdout).unwrap();
    validate(&sarif);
    let res = &sarif["runs"][0]["results"][0];
    assert_eq!(res["ruleId"], "PPO010");
    assert_eq!(res["level"], "error");
    assert_eq!(res["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
    assert!(sarif["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("/sub%20dir/"));
}

#[test]
fn batch_report_in_sarif_has_every_reason_of_the_json_report() {
    let t = tempfile::tempdir().unwrap();
    let src = root().join("corpus/deps");
    let (_, json, _) = run_target(t.path(), "json", &src, "omp", &[], "loops:");
    let (_, sarif, _) = run_target(t.path(), "sarif", &src, "omp", &["--report-format", "sarif"], "loops:");
    validate(&sarif);
    let run = &sarif["runs"][0];
    check_rules(run);
    let mut want = Vec::new();
    for l in json["loops"].as_array().unwrap() {
        for r in l["reasons"].as_array().unwrap() {
            want.push((r["code"].as_str().unwrap().to_string(), l["file"].as_str().unwrap().to_string()));
        }
    }
    let got: Vec<(String, String)> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
            (r["ruleId"].as_str().unwrap().to_string(), uri.to_string())
        })
        .collect();
    assert!(want.len() > 5, "{want:?}");
    assert_eq!(got, want);
}

#[test]
fn report_format_needs_a_report_and_analyze_takes_one_format() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "in/a.c", "int x;\n");
    let out = t.path().join("out");
    let r = ppo(&[
        "-i".as_ref(),
        src.parent().unwrap().as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-omp".as_ref(),
        "--report-format".as_ref(),
        "sarif".as_ref(),
    ]);
    r.assert_code(2).assert_stderr("--report");
    ppo(&[
        "analyze".as_ref(),
        "--json".as_ref(),
        "--report-format".as_ref(),
        "sarif".as_ref(),
        src.as_os_str(),
    ])
    .assert_code(2);
    let j = ppo(&["analyze".as_ref(), "--report-format".as_ref(), "json".as_ref(), src.as_os_str()]);
    let plain = ppo(&["analyze".as_ref(), "--json".as_ref(), src.as_os_str()]);
    assert_eq!(j.stdout, plain.stdout);
}
