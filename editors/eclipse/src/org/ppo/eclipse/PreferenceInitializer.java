package org.ppo.eclipse;

import org.eclipse.core.runtime.preferences.AbstractPreferenceInitializer;
import org.eclipse.core.runtime.preferences.DefaultScope;
import org.eclipse.core.runtime.preferences.IEclipsePreferences;

/** The defaults: ppo on the PATH, OpenMP, PPO130 as information (Eclipse has no hint level). */
public class PreferenceInitializer extends AbstractPreferenceInitializer {
	@Override
	public void initializeDefaultPreferences() {
		IEclipsePreferences node = DefaultScope.INSTANCE.getNode(Activator.PLUGIN_ID);
		node.put(PreferenceConstants.SERVER_PATH, "");
		node.put(PreferenceConstants.TARGET, "openmp");
		node.put(PreferenceConstants.HINTS_PARALLELIZABLE, "information");
	}
}
