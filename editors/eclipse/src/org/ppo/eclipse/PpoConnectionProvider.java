package org.ppo.eclipse;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.core.runtime.Platform;
import org.eclipse.lsp4e.server.ProcessStreamConnectionProvider;

/**
 * Starts the language server, {@code ppo lsp}, over standard input and output. The binary is
 * the {@code serverPath} preference, else {@code ppo} on the PATH. The server's settings go as
 * {@code initializationOptions} under the {@code ppo} key (see docs/lsp.md).
 */
public class PpoConnectionProvider extends ProcessStreamConnectionProvider {

	public PpoConnectionProvider() {
		super(commandLine(preference(PreferenceConstants.SERVER_PATH, "")), System.getProperty("user.dir"));
	}

	/** The command line: the configured binary (or {@code ppo}) and {@code lsp}. */
	public static List<String> commandLine(String configuredPath) {
		String exe = configuredPath == null || configuredPath.isBlank() ? "ppo" : configuredPath.trim();
		return List.of(exe, "lsp");
	}

	/** The command line this provider launches. */
	public List<String> commandLine() {
		return getCommands();
	}

	static String preference(String key, String def) {
		return Platform.getPreferencesService().getString(Activator.PLUGIN_ID, key, def, null);
	}

	@Override
	public Object getInitializationOptions(URI rootUri) {
		Map<String, Object> hints = new HashMap<>();
		hints.put("parallelizable", preference(PreferenceConstants.HINTS_PARALLELIZABLE, "information"));
		Map<String, Object> ppo = new HashMap<>();
		ppo.put("target", preference(PreferenceConstants.TARGET, "openmp"));
		ppo.put("hints", hints);
		Map<String, Object> options = new HashMap<>();
		options.put("ppo", ppo);
		return options;
	}

	@Override
	public String toString() {
		return "ppo language server: " + String.join(" ", getCommands());
	}
}
