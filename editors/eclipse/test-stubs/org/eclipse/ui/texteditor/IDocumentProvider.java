// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.ui.texteditor;

public interface IDocumentProvider {
  org.eclipse.jface.text.IDocument getDocument(Object element);
}
