package org.ppo.eclipse;

/** Keys of the plug-in's preferences (instance scope, node {@link Activator#PLUGIN_ID}). */
public final class PreferenceConstants {
	/** Path of the ppo binary; empty: {@code ppo} on the PATH. */
	public static final String SERVER_PATH = "serverPath";
	/** {@code openmp} or {@code tbb}: the server's {@code target} setting. */
	public static final String TARGET = "target";
	/** Severity of the PPO130 diagnostics: off, hint, information, warning, error. */
	public static final String HINTS_PARALLELIZABLE = "hintsParallelizable";

	private PreferenceConstants() {
	}
}
