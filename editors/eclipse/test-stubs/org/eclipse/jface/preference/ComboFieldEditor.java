// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.jface.preference;

public class ComboFieldEditor extends FieldEditor {
  public ComboFieldEditor(String name, String label, String[][] entries, org.eclipse.swt.widgets.Composite parent) {}
}
