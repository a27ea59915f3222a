//! The cluster file: where and how `ppo run` runs programs when the command line does not say.
//!
//! `ppo.toml` in the program's directory or one of its ancestors (up to the input root), else
//! `~/.config/ppo/cluster.toml` (`$XDG_CONFIG_HOME/ppo/cluster.toml` when that is set):
//!
//! ```toml
//! [cluster]
//! backend = "slurm"          # slurm, mpi, cape or local
//! partition = "compute"
//! nodes = 2
//! tasks_per_node = 2         # MPI ranks (CAPE nodes) per node
//! threads_per_task = 4       # --cpus-per-task and OMP_NUM_THREADS
//! hostfile = "hosts"         # relative to this file
//! launcher = "mpirun"        # or "srun", inside a Slurm allocation
//! launcher_args = ["--bind-to", "none"]
//! sbatch_args = ["--account=proj"]
//! time_limit = 30            # minutes (sbatch --time)
//! ```
//!
//! Every key is optional; command-line flags override the file ([`Cluster::overridden_by`]).
//! Errors name the file, line and column. See docs/cluster.md.

use serde::{Deserialize, Deserializer};
use std::fmt;
use std::path::{Path, PathBuf};

/// The project file's name, looked up from the program's directory upwards.
pub const PROJECT_FILE: &str = "ppo.toml";

/// Which backend runs the programs.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BackendName {
    Slurm,
    Mpi,
    Cape,
    Local,
}

/// What starts the MPI ranks inside a Slurm allocation.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Launcher {
    /// `mpirun -np N` (Open MPI reads the allocation from Slurm's environment).
    #[default]
    Mpirun,
    /// `srun`: Slurm starts the ranks itself (needs Slurm's PMI support in the MPI library).
    Srun,
}

/// The `[cluster]` section, or the same settings from the command line.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    pub backend: Option<BackendName>,
    #[serde(default, deserialize_with = "non_empty")]
    pub partition: Option<String>,
    #[serde(default, deserialize_with = "positive")]
    pub nodes: Option<u32>,
    #[serde(default, deserialize_with = "positive")]
    pub tasks_per_node: Option<u32>,
    #[serde(default, deserialize_with = "positive")]
    pub threads_per_task: Option<u32>,
    pub hostfile: Option<PathBuf>,
    pub launcher: Option<Launcher>,
    #[serde(default)]
    pub launcher_args: Vec<String>,
    #[serde(default)]
    pub sbatch_args: Vec<String>,
    /// Minutes.
    #[serde(default, deserialize_with = "positive")]
    pub time_limit: Option<u32>,
    /// The file these settings came from (`None`: the command line or the defaults).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    cluster: Option<Cluster>,
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match u32::deserialize(d)? {
        0 => Err(serde::de::Error::custom("must be at least 1")),
        n => Ok(Some(n)),
    }
}

fn non_empty<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = String::deserialize(d)?;
    if s.trim().is_empty() {
        return Err(serde::de::Error::custom("must not be empty"));
    }
    Ok(Some(s))
}

/// A cluster file that could not be read or is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub file: PathBuf,
    /// 1-based line and column of the offending text, when known.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for FileError {}

/// 1-based line and column of byte `offset` of `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl Cluster {
    /// Parse a cluster file's text (`file` is for messages and relative paths). A file
    /// without a `[cluster]` section gives the empty settings.
    pub fn parse(text: &str, file: &Path) -> Result<Cluster, FileError> {
        let parsed: ProjectFile = toml::from_str(text).map_err(|e| FileError {
            file: file.to_path_buf(),
            at: e.span().map(|s| line_col(text, s.start)),
            message: e.message().trim().to_string(),
        })?;
        let mut c = parsed.cluster.unwrap_or_default();
        if let (Some(h), Some(dir)) = (&c.hostfile, file.parent()) {
            if h.is_relative() {
                c.hostfile = Some(dir.join(h));
            }
        }
        c.file = Some(file.to_path_buf());
        Ok(c)
    }

    /// Read and parse `file`.
    pub fn load(file: &Path) -> Result<Cluster, FileError> {
        let text = std::fs::read_to_string(file).map_err(|e| FileError {
            file: file.to_path_buf(),
            at: None,
            message: format!("cannot read: {e}"),
        })?;
        Cluster::parse(&text, file)
    }

    /// These settings with every one that `flags` sets replaced (lists: when not empty).
    pub fn overridden_by(&self, flags: &Cluster) -> Cluster {
        let list = |f: &Vec<String>, s: &Vec<String>| if f.is_empty() { s.clone() } else { f.clone() };
        Cluster {
            backend: flags.backend.or(self.backend),
            partition: flags.partition.clone().or_else(|| self.partition.clone()),
            nodes: flags.nodes.or(self.nodes),
            tasks_per_node: flags.tasks_per_node.or(self.tasks_per_node),
            threads_per_task: flags.threads_per_task.or(self.threads_per_task),
            hostfile: flags.hostfile.clone().or_else(|| self.hostfile.clone()),
            launcher: flags.launcher.or(self.launcher),
            launcher_args: list(&flags.launcher_args, &self.launcher_args),
            sbatch_args: list(&flags.sbatch_args, &self.sbatch_args),
            time_limit: flags.time_limit.or(self.time_limit),
            file: self.file.clone(),
        }
    }

    /// The total number of MPI ranks (CAPE nodes): `np` when given, else nodes ×
    /// tasks per node when either is set, else `default`.
    pub fn ranks(&self, np: Option<u32>, default: u32) -> u32 {
        if let Some(n) = np {
            return n;
        }
        match (self.nodes, self.tasks_per_node) {
            (None, None) => default,
            (n, t) => n.unwrap_or(1) * t.unwrap_or(1),
        }
    }
}

/// The user's cluster file: `$XDG_CONFIG_HOME/ppo/cluster.toml` or
/// `$HOME/.config/ppo/cluster.toml` (whether it exists or not).
pub fn user_file() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("ppo").join("cluster.toml"))
}

/// The cluster file for a program in `dir`: the nearest `ppo.toml` in `dir` or its
/// ancestors up to `root` (only `dir` itself when `root` is not an ancestor), else the
/// user's file when it exists.
pub fn find(dir: &Path, root: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let walk: Vec<&Path> = if dir.starts_with(&root) {
        dir.ancestors().take_while(|a| a.starts_with(&root)).collect()
    } else {
        vec![&dir]
    };
    walk.into_iter()
        .map(|d| d.join(PROJECT_FILE))
        .find(|f| f.is_file())
        .or_else(|| user_file().filter(|f| f.is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Cluster, FileError> {
        Cluster::parse(text, Path::new("/p/ppo.toml"))
    }

    #[test]
    fn reads_every_key() {
        let c = parse(
            "# a comment\n[cluster]\nbackend = \"slurm\"\npartition = \"debug\"\nnodes = 2\n\
             tasks_per_node = 3\nthreads_per_task = 4\nhostfile = \"hosts\"\nlauncher = \"srun\"\n\
             launcher_args = [\"--mpi=pmix\"]\nsbatch_args = [\"--account=x\", \"--qos=low\"]\n\
             time_limit = 15\n",
        )
        .unwrap();
        assert_eq!(c.backend, Some(BackendName::Slurm));
        assert_eq!(c.partition.as_deref(), Some("debug"));
        assert_eq!((c.nodes, c.tasks_per_node, c.threads_per_task), (Some(2), Some(3), Some(4)));
        assert_eq!(c.hostfile, Some(PathBuf::from("/p/hosts")));
        assert_eq!(c.launcher, Some(Launcher::Srun));
        assert_eq!(c.launcher_args, ["--mpi=pmix"]);
        assert_eq!(c.sbatch_args, ["--account=x", "--qos=low"]);
        assert_eq!(c.time_limit, Some(15));
        assert_eq!(c.file, Some(PathBuf::from("/p/ppo.toml")));
        assert_eq!(c.ranks(None, 4), 6);
        assert_eq!(c.ranks(Some(5), 4), 5);
    }

    #[test]
    fn empty_or_sectionless_files_set_nothing() {
        let c = parse("").unwrap();
        assert_eq!(c, Cluster { file: Some("/p/ppo.toml".into()), ..Cluster::default() });
        assert_eq!(parse("[cluster]\n").unwrap().ranks(None, 4), 4);
        assert_eq!(parse("[cluster]\nnodes = 3\n").unwrap().ranks(None, 4), 3);
        let abs = parse("[cluster]\nhostfile = \"/etc/hosts.mpi\"\n").unwrap();
        assert_eq!(abs.hostfile, Some(PathBuf::from("/etc/hosts.mpi")));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = parse("[cluster]\nbackend = \"slurm\"\nnodes = 0\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(3), "{e}");
        assert!(e.to_string().starts_with("/p/ppo.toml:3:"), "{e}");
        assert!(e.message.contains("at least 1"), "{e}");

        let e = parse("[cluster]\n\nbackend = \"pbs\"\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(3), "{e}");
        assert!(e.message.contains("pbs") && e.message.contains("slurm"), "{e}");

        let e = parse("[cluster]\nnode = 2\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(2), "{e}");
        assert!(e.message.contains("node"), "{e}");

        let e = parse("[clustr]\nnodes = 2\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(1), "{e}");

        let e = parse("[cluster]\npartition = \"\"\n").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");

        let e = parse("[cluster]\ntasks_per_node = -1\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(2), "{e}");

        let e = parse("[cluster]\nnodes = 2\nnodes = 3\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(3), "{e}");

        let e = Cluster::load(Path::new("/nonexistent/ppo.toml")).unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/ppo.toml: cannot read"), "{e}");
    }

    #[test]
    fn flags_override_the_file() {
        let file = parse(
            "[cluster]\nbackend = \"slurm\"\npartition = \"a\"\nnodes = 2\nsbatch_args = [\"-A\", \"x\"]\n",
        )
        .unwrap();
        let flags = Cluster {
            partition: Some("b".into()),
            threads_per_task: Some(8),
            launcher: Some(Launcher::Srun),
            ..Cluster::default()
        };
        let c = file.overridden_by(&flags);
        assert_eq!(c.backend, Some(BackendName::Slurm));
        assert_eq!(c.partition.as_deref(), Some("b"));
        assert_eq!(c.nodes, Some(2));
        assert_eq!(c.threads_per_task, Some(8));
        assert_eq!(c.launcher, Some(Launcher::Srun));
        assert_eq!(c.sbatch_args, ["-A", "x"]);
        assert_eq!(c.file, file.file);
        let c = file.overridden_by(&Cluster { backend: Some(BackendName::Mpi), ..Cluster::default() });
        assert_eq!(c.backend, Some(BackendName::Mpi));
    }

    #[test]
    fn finds_the_nearest_project_file_up_to_the_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        let deep = root.join("a").join("b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(t.path().join(PROJECT_FILE), "[cluster]\n").unwrap();
        // Above the root: not used (the user's file may be, when this machine has one).
        let found = find(&deep, &root);
        assert!(found.is_none() || found == user_file(), "{found:?}");
        std::fs::write(root.join(PROJECT_FILE), "[cluster]\n").unwrap();
        assert_eq!(find(&deep, &root), Some(root.canonicalize().unwrap().join(PROJECT_FILE)));
        std::fs::write(deep.join(PROJECT_FILE), "[cluster]\n").unwrap();
        assert_eq!(find(&deep, &root), Some(deep.canonicalize().unwrap().join(PROJECT_FILE)));
        // A directory outside the root: only its own file.
        let other = t.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join(PROJECT_FILE), "").unwrap();
        assert_eq!(find(&other, &root), Some(other.canonicalize().unwrap().join(PROJECT_FILE)));
    }

    #[test]
    fn line_and_column_of_an_offset() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab\n", 3), (2, 1));
    }
}
