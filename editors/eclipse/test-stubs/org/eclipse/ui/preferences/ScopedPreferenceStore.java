// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.ui.preferences;

public class ScopedPreferenceStore implements org.eclipse.jface.preference.IPreferenceStore {
  public ScopedPreferenceStore(org.eclipse.core.runtime.preferences.IScopeContext context, String qualifier) {}
}
