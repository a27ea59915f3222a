// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.runtime.preferences;

public interface IScopeContext {
  IEclipsePreferences getNode(String qualifier);
}
