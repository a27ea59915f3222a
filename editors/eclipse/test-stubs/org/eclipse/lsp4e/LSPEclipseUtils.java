// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.lsp4e;

public final class LSPEclipseUtils {
  public static java.net.URI toUri(org.eclipse.jface.text.IDocument document) { return null; }
}
