// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.lsp4e;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import org.eclipse.lsp4j.ServerCapabilities;
import org.eclipse.lsp4j.services.LanguageServer;

public abstract class LanguageServers<E extends LanguageServers<E>> {
  public static LanguageServerDocumentExecutor forDocument(org.eclipse.jface.text.IDocument document) { return new LanguageServerDocumentExecutor(); }
  public E withFilter(Predicate<ServerCapabilities> filter) { return null; }
  public <T> CompletableFuture<Optional<T>> computeFirst(Function<LanguageServer, ? extends CompletionStage<T>> queryLS) { return null; }
  public static class LanguageServerDocumentExecutor extends LanguageServers<LanguageServerDocumentExecutor> {}
}
