// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.ui.plugin;

public abstract class AbstractUIPlugin {
  public void start(org.osgi.framework.BundleContext context) throws Exception {}
  public void stop(org.osgi.framework.BundleContext context) throws Exception {}
}
