// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.ui.handlers;

public final class HandlerUtil {
  public static org.eclipse.ui.IEditorPart getActiveEditor(org.eclipse.core.commands.ExecutionEvent e) { return null; }
  public static org.eclipse.swt.widgets.Shell getActiveShell(org.eclipse.core.commands.ExecutionEvent e) { return null; }
}
