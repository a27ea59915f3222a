// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.lsp4j.services;

public interface WorkspaceService {
  java.util.concurrent.CompletableFuture<Object> executeCommand(org.eclipse.lsp4j.ExecuteCommandParams params);
}
