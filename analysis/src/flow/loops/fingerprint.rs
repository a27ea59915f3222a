//! Fingerprints: stable structural hashes (FNV-1a) of a function's statements and
//! expressions, memoized bottom-up, so that fingerprinting every loop of a nest costs one pass.

use crate::ir::hash::StableHasher as Fnv;
use crate::ir::*;
use std::hash::Hasher;

/// Bottom-up structural hashes of a function's statements and expressions, memoized so
/// that fingerprinting every loop of a nest costs one pass.
pub(super) struct StructHash<'f> {
    f: &'f Function,
    unit: &'f TranslationUnit,
    stmts: Vec<Option<u64>>,
    exprs: Vec<Option<u64>>,
}

#[derive(Clone, Copy)]
enum Node {
    S(StmtId),
    E(ExprId),
}

impl<'f> StructHash<'f> {
    pub(super) fn new(unit: &'f TranslationUnit, f: &'f Function) -> Self {
        StructHash { f, unit, stmts: vec![None; f.stmts.len()], exprs: vec![None; f.exprs.len()] }
    }

    fn children(&self, n: Node, out: &mut Vec<Node>) {
        let f = self.f;
        match n {
            Node::E(e) => {
                if let ExprKind::StmtExpr(s) = f.expr(e).kind {
                    out.push(Node::S(s));
                } else {
                    f.for_each_child(e, |c| out.push(Node::E(c)));
                }
            }
            Node::S(s) => match &f.stmt(s).kind {
                StmtKind::Expr(e) => out.push(Node::E(*e)),
                StmtKind::Decl(ds) => out.extend(ds.iter().filter_map(|d| d.init).map(Node::E)),
                StmtKind::Compound(v) => out.extend(v.iter().map(|&c| Node::S(c))),
                StmtKind::If { cond, then, els } => {
                    out.push(Node::E(*cond));
                    out.push(Node::S(*then));
                    out.extend(els.iter().map(|&c| Node::S(c)));
                }
                StmtKind::While { cond, body } | StmtKind::Switch { cond, body } => {
                    out.push(Node::E(*cond));
                    out.push(Node::S(*body));
                }
                StmtKind::DoWhile { body, cond } => {
                    out.push(Node::S(*body));
                    out.push(Node::E(*cond));
                }
                StmtKind::For { init, cond, step, body } => {
                    // Absent parts are marked in the node's own hash.
                    out.extend(init.iter().map(|&c| Node::S(c)));
                    out.extend(cond.iter().map(|&c| Node::E(c)));
                    out.extend(step.iter().map(|&c| Node::E(c)));
                    out.push(Node::S(*body));
                }
                StmtKind::Case { value, body } => {
                    out.extend(value.iter().map(|&c| Node::E(c)));
                    out.extend(body.iter().map(|&c| Node::S(c)));
                }
                StmtKind::Return(e) => out.extend(e.iter().map(|&c| Node::E(c))),
                StmtKind::Labeled { stmt, .. } => out.push(Node::S(*stmt)),
                _ => {}
            },
        }
    }

    fn memo(&self, n: Node) -> Option<u64> {
        match n {
            Node::S(s) => self.stmts[s.index()],
            Node::E(e) => self.exprs[e.index()],
        }
    }

    pub(super) fn stmt(&mut self, root: StmtId) -> u64 {
        let mut stack = vec![(Node::S(root), false)];
        let mut kids = Vec::new();
        while let Some((n, expanded)) = stack.pop() {
            if self.memo(n).is_some() {
                continue;
            }
            kids.clear();
            self.children(n, &mut kids);
            if !expanded {
                stack.push((n, true));
                stack.extend(kids.iter().filter(|&&k| self.memo(k).is_none()).map(|&k| (k, false)));
                continue;
            }
            let h = self.own(n, &kids);
            match n {
                Node::S(s) => self.stmts[s.index()] = Some(h),
                Node::E(e) => self.exprs[e.index()] = Some(h),
            }
        }
        self.stmts[root.index()].unwrap_or(0)
    }

    fn own(&self, n: Node, kids: &[Node]) -> u64 {
        let f = self.f;
        let mut h;
        match n {
            Node::S(s) => {
                let k = &f.stmt(s).kind;
                h = Fnv::tagged(1);
                h.byte(match k {
                    StmtKind::Expr(_) => 1,
                    StmtKind::Decl(_) => 2,
                    StmtKind::Compound(_) => 3,
                    StmtKind::If { .. } => 4,
                    StmtKind::While { .. } => 5,
                    StmtKind::DoWhile { .. } => 6,
                    StmtKind::For { .. } => 7,
                    StmtKind::Switch { .. } => 8,
                    StmtKind::Case { .. } => 9,
                    StmtKind::Break => 10,
                    StmtKind::Continue => 11,
                    StmtKind::Return(_) => 12,
                    StmtKind::Goto(_) => 13,
                    StmtKind::Labeled { .. } => 14,
                    StmtKind::Pragma(_) => 15,
                    StmtKind::Asm => 16,
                    StmtKind::Empty => 17,
                    StmtKind::Error => 18,
                });
                match k {
                    StmtKind::Decl(ds) => {
                        for d in ds {
                            let sym = self.unit.sym(d.sym);
                            h.str(&sym.name);
                            h.str(&sym.ty.to_string());
                            h.byte(d.init.is_some() as u8);
                        }
                    }
                    StmtKind::For { init, cond, step, .. } => h.byte(
                        init.is_some() as u8 | (cond.is_some() as u8) << 1 | (step.is_some() as u8) << 2,
                    ),
                    StmtKind::If { els, .. } => h.byte(els.is_some() as u8),
                    StmtKind::Case { value, .. } => h.byte(value.is_some() as u8),
                    StmtKind::Goto(l) | StmtKind::Labeled { label: l, .. } | StmtKind::Pragma(l) => h.str(l),
                    _ => {}
                }
            }
            Node::E(e) => {
                h = Fnv::tagged(2);
                match &f.expr(e).kind {
                    ExprKind::Int(v) => {
                        h.byte(1);
                        h.u64(*v as u64)
                    }
                    ExprKind::Float(v) => {
                        h.byte(2);
                        h.u64(v.to_bits())
                    }
                    ExprKind::Char(v) => {
                        h.byte(3);
                        h.u64(*v as u64)
                    }
                    ExprKind::Str(s) => {
                        h.byte(4);
                        h.str(s)
                    }
                    ExprKind::Var(s) => {
                        h.byte(5);
                        h.str(&self.unit.sym(*s).name)
                    }
                    ExprKind::FuncName(n) => {
                        h.byte(6);
                        h.str(n)
                    }
                    ExprKind::EnumConst(n, _) => {
                        h.byte(7);
                        h.str(n)
                    }
                    ExprKind::Unresolved(n) => {
                        h.byte(8);
                        h.str(n)
                    }
                    ExprKind::Unary(op, _) => {
                        h.byte(9);
                        h.str(op.as_str())
                    }
                    ExprKind::Binary(op, ..) => {
                        h.byte(10);
                        h.str(op.as_str())
                    }
                    ExprKind::Assign { op, .. } => {
                        h.byte(11);
                        h.str(op.map_or("", |o| o.as_str()))
                    }
                    ExprKind::IncDec { inc, prefix, .. } => {
                        h.byte(12);
                        h.byte(*inc as u8 | (*prefix as u8) << 1)
                    }
                    ExprKind::Cond { .. } => h.byte(13),
                    ExprKind::Comma(..) => h.byte(14),
                    ExprKind::Call { args, .. } => {
                        h.byte(15);
                        h.u64(args.len() as u64)
                    }
                    ExprKind::Index { .. } => h.byte(16),
                    ExprKind::Member { field, arrow, .. } => {
                        h.byte(17);
                        h.byte(*arrow as u8);
                        h.str(field)
                    }
                    ExprKind::Cast { ty, .. } => {
                        h.byte(18);
                        h.str(&ty.to_string())
                    }
                    ExprKind::SizeofType(ty) => {
                        h.byte(19);
                        h.str(&ty.to_string())
                    }
                    ExprKind::SizeofExpr(_) => h.byte(20),
                    ExprKind::InitList(v) => {
                        h.byte(21);
                        h.u64(v.len() as u64)
                    }
                    ExprKind::CompoundLiteral { ty, .. } => {
                        h.byte(22);
                        h.str(&ty.to_string())
                    }
                    ExprKind::StmtExpr(_) => h.byte(23),
                    ExprKind::Error => h.byte(24),
                }
            }
        }
        h.u64(kids.len() as u64);
        for &k in kids {
            h.u64(self.memo(k).unwrap_or(0));
        }
        h.finish()
    }
}
