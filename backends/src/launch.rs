//! The backends of one run, set up once from the user's settings over the cluster file:
//! what `ppo run`, batch `-e` and the language server's *Run on cluster* share.

use crate::cluster::{Cluster, Launcher};
use crate::slurm::{Allocation, Inner, Listener};
use crate::{Backend, BuildOptions, CapeBackend, Kind, LocalBackend, MpiBackend, SlurmBackend};
use std::path::PathBuf;
use std::time::Duration;

/// The default number of MPI ranks (CAPE nodes, Slurm tasks).
pub const DEFAULT_NP: u32 = 4;

/// What the user asked for (command-line flags, editor settings); unset values come from the
/// cluster file, then the defaults.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Ranks (CAPE nodes, Slurm tasks).
    pub np: Option<u32>,
    /// Threads (per rank for CAPE and Slurm).
    pub threads: Option<u32>,
    pub hostfile: Option<PathBuf>,
    /// Kill the run (cancel the job) after this long.
    pub timeout: Duration,
    /// More mpirun arguments.
    pub mpirun_args: Vec<String>,
    pub build: BuildOptions,
}

/// The backends of a run: each program picks one by its [`Kind`], or a Slurm job running it
/// as that kind would run.
#[derive(Clone, Debug)]
pub struct Backends {
    pub local: LocalBackend,
    pub mpi: MpiBackend,
    pub cape: CapeBackend,
    /// The cluster settings (file and flags) for Slurm jobs.
    pub cluster: Cluster,
    pub timeout: Duration,
}

impl Backends {
    /// The backends of `s`, with the cluster file's settings `c` where `s` has none.
    pub fn new(s: &Settings, c: &Cluster) -> Backends {
        let mut extra_args = s.mpirun_args.clone();
        if c.launcher != Some(Launcher::Srun) {
            extra_args.extend(c.launcher_args.iter().cloned());
        }
        let threads = s.threads.or(c.threads_per_task).map(|t| t as usize);
        let np = c.ranks(s.np, DEFAULT_NP) as usize;
        let hostfile = s.hostfile.clone().or_else(|| c.hostfile.clone());
        let timeout = Some(s.timeout);
        Backends {
            local: LocalBackend { threads, timeout, build: s.build.clone() },
            mpi: MpiBackend {
                np,
                hostfile: hostfile.clone(),
                timeout,
                extra_args: extra_args.clone(),
                build: s.build.clone(),
                ..MpiBackend::default()
            },
            cape: CapeBackend {
                np,
                threads,
                hostfile,
                timeout,
                extra_args,
                build: s.build.clone(),
                ..CapeBackend::default()
            },
            cluster: c.clone(),
            timeout: s.timeout,
        }
    }

    /// The backend for a `kind` program on this machine.
    pub fn get(&self, kind: Kind) -> &dyn Backend {
        match kind {
            Kind::Local => &self.local,
            Kind::Mpi => &self.mpi,
            Kind::Cape => &self.cape,
        }
    }

    /// A Slurm job of the cluster settings that runs a `kind` program as [`Backends::get`]'s
    /// backend would; `listener` hears the submission and the output as it comes.
    pub fn slurm(&self, kind: Kind, listener: Option<Listener>) -> SlurmBackend {
        let c = &self.cluster;
        let inner = match kind {
            Kind::Local => Inner::Local(self.local.clone()),
            Kind::Mpi => Inner::Mpi(self.mpi.clone()),
            Kind::Cape => Inner::Cape(self.cape.clone()),
        };
        let mut b = SlurmBackend::new(inner);
        b.alloc = Allocation {
            partition: c.partition.clone(),
            nodes: c.nodes,
            tasks_per_node: c.tasks_per_node,
            time_limit: c.time_limit,
            sbatch_args: c.sbatch_args.clone(),
        };
        b.launcher = c.launcher.unwrap_or_default();
        if b.launcher == Launcher::Srun {
            b.launcher_args = c.launcher_args.clone();
        }
        b.timeout = Some(self.timeout);
        b.listener = listener;
        b
    }
}
