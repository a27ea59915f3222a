// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.runtime.preferences;

public final class DefaultScope implements IScopeContext {
  public static final IScopeContext INSTANCE = new DefaultScope();
  static final java.util.Map<String, String> VALUES = new java.util.HashMap<>();
  public IEclipsePreferences getNode(String qualifier) {
    return new IEclipsePreferences() {
      public void put(String k, String v) { VALUES.put(qualifier + "/" + k, v); }
      public String get(String k, String d) { return VALUES.getOrDefault(qualifier + "/" + k, d); }
    };
  }
}
