// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.jface.preference;

public class FileFieldEditor extends FieldEditor {
  public FileFieldEditor(String name, String label, org.eclipse.swt.widgets.Composite parent) {}
}
