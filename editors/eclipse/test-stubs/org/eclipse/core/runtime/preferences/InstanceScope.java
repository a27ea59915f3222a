// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.runtime.preferences;

public final class InstanceScope implements IScopeContext {
  public static final IScopeContext INSTANCE = new InstanceScope();
  public IEclipsePreferences getNode(String qualifier) { return DefaultScope.INSTANCE.getNode(qualifier); }
}
