//! Which runtime a program needs, from its text (the scans live in
//! `analysis::syntax::scan`).

pub use analysis::syntax::scan::{has_main, uses_cape, uses_mpi};

/// The backend a program's text needs: CAPE (`cape.h`), MPI (`mpi.h`), else local
/// (OpenMP, TBB).
pub fn program_kind(text: &str) -> crate::Kind {
    if uses_cape(text) {
        crate::Kind::Cape
    } else if uses_mpi(text) {
        crate::Kind::Mpi
    } else {
        crate::Kind::Local
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_follows_the_includes() {
        assert_eq!(program_kind("#include <mpi.h>\n"), crate::Kind::Mpi);
        assert_eq!(program_kind("#include \"cape.h\"\n#include <mpi.h>\n"), crate::Kind::Cape);
        assert_eq!(program_kind("#include <stdio.h>\n"), crate::Kind::Local);
    }
}
