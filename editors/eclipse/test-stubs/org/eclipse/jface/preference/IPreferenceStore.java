// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.jface.preference;

public interface IPreferenceStore {}
