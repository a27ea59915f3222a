// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.lsp4j;

public class ServerCapabilities {
  public ExecuteCommandOptions getExecuteCommandProvider() { return null; }
}
