package org.ppo.eclipse;

import org.eclipse.ui.plugin.AbstractUIPlugin;
import org.osgi.framework.BundleContext;

/** The plug-in's life cycle; LSP4E starts and stops the language server itself. */
public class Activator extends AbstractUIPlugin {
	public static final String PLUGIN_ID = "org.ppo.eclipse";

	private static Activator plugin;

	@Override
	public void start(BundleContext context) throws Exception {
		super.start(context);
		plugin = this;
	}

	@Override
	public void stop(BundleContext context) throws Exception {
		plugin = null;
		super.stop(context);
	}

	public static Activator getDefault() {
		return plugin;
	}
}
