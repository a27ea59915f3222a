// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.runtime.preferences;

public interface IEclipsePreferences {
  void put(String key, String value);
  String get(String key, String def);
}
