// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.jface.dialogs;

public class MessageDialog {
  public static void openInformation(org.eclipse.swt.widgets.Shell s, String title, String message) {}
  public static void openError(org.eclipse.swt.widgets.Shell s, String title, String message) {}
}
