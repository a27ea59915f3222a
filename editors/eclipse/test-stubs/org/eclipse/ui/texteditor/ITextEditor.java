// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.ui.texteditor;

public interface ITextEditor extends org.eclipse.ui.IEditorPart {
  IDocumentProvider getDocumentProvider();
}
