//! Printing IR expressions back as C (minimal parentheses), for messages and replacement
//! text computed from analysis results (the IR, not the source: macros appear expanded).

use crate::ir::*;

fn prec_bin(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Mul | Div | Rem => 13,
        Add | Sub => 12,
        Shl | Shr => 11,
        Lt | Le | Gt | Ge => 10,
        Eq | Ne => 9,
        BitAnd => 8,
        BitXor => 7,
        BitOr => 6,
        LogAnd => 5,
        LogOr => 4,
    }
}

/// Precedence of `e` as C (1 comma … 14 unary and casts, 16 primary and postfix).
pub fn prec(f: &Function, e: ExprId) -> u8 {
    match &f.expr(e).kind {
        ExprKind::Comma(..) => 1,
        ExprKind::Assign { .. } => 2,
        ExprKind::Cond { .. } => 3,
        ExprKind::Binary(op, ..) => prec_bin(*op),
        ExprKind::Unary(..) | ExprKind::Cast { .. } | ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) => 14,
        ExprKind::IncDec { prefix: true, .. } => 14,
        ExprKind::Int(v) | ExprKind::Char(v) if *v < 0 => 14,
        ExprKind::Float(x) if *x < 0.0 => 14,
        _ => 16,
    }
}

/// C text of expression `e` of `f`.
pub fn expr_to_c(unit: &TranslationUnit, f: &Function, e: ExprId) -> String {
    let mut s = String::new();
    write_expr(unit, f, e, 0, &mut s);
    s
}

fn float_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

fn write_expr(unit: &TranslationUnit, f: &Function, e: ExprId, min: u8, s: &mut String) {
    let p = prec(f, e);
    let paren = p < min;
    if paren {
        s.push('(');
    }
    match &f.expr(e).kind {
        ExprKind::Int(v) | ExprKind::Char(v) => s.push_str(&v.to_string()),
        ExprKind::EnumConst(n, _) => s.push_str(n),
        ExprKind::Float(x) => s.push_str(&float_text(*x)),
        ExprKind::Str(t) => s.push_str(&format!("{t:?}")),
        ExprKind::Var(sym) => s.push_str(&unit.sym(*sym).name),
        ExprKind::FuncName(n) | ExprKind::Unresolved(n) => s.push_str(n),
        ExprKind::Unary(op, a) => {
            s.push_str(op.as_str());
            if matches!(f.expr(*a).kind, ExprKind::Unary(o, _) if o == *op) {
                s.push(' ');
            }
            write_expr(unit, f, *a, 14, s);
        }
        ExprKind::Binary(op, a, b) => {
            let q = prec_bin(*op);
            write_expr(unit, f, *a, q, s);
            s.push(' ');
            s.push_str(op.as_str());
            s.push(' ');
            write_expr(unit, f, *b, q + 1, s);
        }
        ExprKind::Assign { op, lhs, rhs } => {
            write_expr(unit, f, *lhs, 14, s);
            s.push(' ');
            if let Some(o) = op {
                s.push_str(o.as_str());
            }
            s.push_str("= ");
            write_expr(unit, f, *rhs, 2, s);
        }
        ExprKind::IncDec { inc, prefix, operand } => {
            let o = if *inc { "++" } else { "--" };
            if *prefix {
                s.push_str(o);
                write_expr(unit, f, *operand, 14, s);
            } else {
                write_expr(unit, f, *operand, 15, s);
                s.push_str(o);
            }
        }
        ExprKind::Cond { cond, then, els } => {
            write_expr(unit, f, *cond, 4, s);
            s.push_str(" ? ");
            write_expr(unit, f, *then, 1, s);
            s.push_str(" : ");
            write_expr(unit, f, *els, 3, s);
        }
        ExprKind::Comma(a, b) => {
            write_expr(unit, f, *a, 1, s);
            s.push_str(", ");
            write_expr(unit, f, *b, 2, s);
        }
        ExprKind::Call { callee, args } => {
            write_expr(unit, f, *callee, 15, s);
            s.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_expr(unit, f, *a, 2, s);
            }
            s.push(')');
        }
        ExprKind::Index { base, index } => {
            write_expr(unit, f, *base, 15, s);
            s.push('[');
            write_expr(unit, f, *index, 0, s);
            s.push(']');
        }
        ExprKind::Member { base, field, arrow } => {
            write_expr(unit, f, *base, 15, s);
            s.push_str(if *arrow { "->" } else { "." });
            s.push_str(field);
        }
        ExprKind::Cast { ty, expr } => {
            s.push_str(&format!("({ty})"));
            write_expr(unit, f, *expr, 14, s);
        }
        ExprKind::SizeofType(t) => s.push_str(&format!("sizeof({t})")),
        ExprKind::SizeofExpr(a) => {
            s.push_str("sizeof ");
            write_expr(unit, f, *a, 14, s);
        }
        ExprKind::InitList(v) => {
            s.push('{');
            for (i, a) in v.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_expr(unit, f, *a, 2, s);
            }
            s.push('}');
        }
        ExprKind::CompoundLiteral { ty, init } => {
            s.push_str(&format!("({ty})"));
            write_expr(unit, f, *init, 0, s);
        }
        ExprKind::StmtExpr(_) => s.push_str("({ ... })"),
        ExprKind::Error => s.push_str("/* error */"),
    }
    if paren {
        s.push(')');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::tests::setup;

    #[test]
    fn prints_with_minimal_parentheses() {
        let src = "int f(int a, int b, int *p) { return (a + b) * 2 - (a - (b - 1)) + p[a * 2] + -a + (a ? b : 3) + (int)b; }";
        let (u, _) = setup(src);
        let f = &u.functions[0];
        let r = f
            .stmts
            .iter()
            .find_map(|s| if let StmtKind::Return(Some(e)) = s.kind { Some(e) } else { None })
            .unwrap();
        assert_eq!(expr_to_c(&u, f, r), "(a + b) * 2 - (a - (b - 1)) + p[a * 2] + -a + (a ? b : 3) + (int)b");
    }
}
