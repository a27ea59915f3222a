// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.jface.preference;

public abstract class FieldEditorPreferencePage {
  public static final int GRID = 1;
  protected FieldEditorPreferencePage(int style) {}
  public void setPreferenceStore(IPreferenceStore store) {}
  public void setDescription(String d) {}
  protected void addField(FieldEditor e) {}
  protected org.eclipse.swt.widgets.Composite getFieldEditorParent() { return null; }
  protected abstract void createFieldEditors();
}
