package org.ppo.eclipse;

import java.net.URI;
import java.util.List;
import java.util.Optional;

import org.eclipse.core.commands.AbstractHandler;
import org.eclipse.core.commands.ExecutionEvent;
import org.eclipse.core.commands.ExecutionException;
import org.eclipse.jface.dialogs.MessageDialog;
import org.eclipse.jface.text.IDocument;
import org.eclipse.lsp4e.LSPEclipseUtils;
import org.eclipse.lsp4e.LanguageServers;
import org.eclipse.lsp4j.ExecuteCommandParams;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IEditorPart;
import org.eclipse.ui.handlers.HandlerUtil;
import org.eclipse.ui.texteditor.ITextEditor;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Parallelization > Auto Parallelization (and the toolbar button): runs the server's
 * {@code ppo.parallelizeFile} command on the document of the active editor. The server answers
 * with a {@code workspace/applyEdit} request carrying the directives, which LSP4E applies to
 * the document (undoable, unsaved), then with {@code {applied, edits, events}}, shown here.
 */
public class ParallelizeFileHandler extends AbstractHandler {
	public static final String COMMAND = "ppo.parallelizeFile";
	private static final String TITLE = "Auto Parallelization";

	@Override
	public Object execute(ExecutionEvent event) throws ExecutionException {
		IEditorPart part = HandlerUtil.getActiveEditor(event);
		Shell shell = HandlerUtil.getActiveShell(event);
		if (!(part instanceof ITextEditor)) {
			MessageDialog.openInformation(shell, TITLE, "Open a C file in an editor first.");
			return null;
		}
		ITextEditor editor = (ITextEditor) part;
		IDocument document = editor.getDocumentProvider().getDocument(editor.getEditorInput());
		URI uri = document == null ? null : LSPEclipseUtils.toUri(document);
		if (uri == null) {
			MessageDialog.openInformation(shell, TITLE, "This editor has no file the ppo server can work on.");
			return null;
		}
		ExecuteCommandParams params = new ExecuteCommandParams(COMMAND, List.of(uri.toString()));
		LanguageServers.forDocument(document)
				.withFilter(caps -> caps.getExecuteCommandProvider() != null
						&& caps.getExecuteCommandProvider().getCommands().contains(COMMAND))
				.computeFirst(server -> server.getWorkspaceService().executeCommand(params))
				.whenComplete((result, error) -> shell.getDisplay().asyncExec(() -> report(shell, result, error)));
		return null;
	}

	private static void report(Shell shell, Optional<Object> result, Throwable error) {
		if (shell.isDisposed()) {
			return;
		}
		if (error != null) {
			Throwable cause = error.getCause() != null ? error.getCause() : error;
			MessageDialog.openError(shell, TITLE, "ppo could not parallelize the file: " + cause.getMessage());
			return;
		}
		if (result == null || result.isEmpty()) {
			MessageDialog.openError(shell, TITLE,
					"No ppo language server is connected to this editor (is it a C file, and ppo on the PATH?).");
			return;
		}
		MessageDialog.openInformation(shell, TITLE, summary(result.get()));
	}

	/** The server's answer, {@code {applied, edits, events}}, in words. */
	static String summary(Object result) {
		if (!(result instanceof JsonObject)) {
			return String.valueOf(result);
		}
		JsonObject o = (JsonObject) result;
		boolean applied = o.has("applied") && o.get("applied").getAsBoolean();
		int edits = o.has("edits") ? o.get("edits").getAsInt() : 0;
		StringBuilder s = new StringBuilder(applied ? "Inserted " + edits + " directive(s)." : "Nothing to apply.");
		if (o.has("events") && o.get("events").isJsonArray()) {
			for (JsonElement e : o.get("events").getAsJsonArray()) {
				s.append('\n').append(e.getAsString());
			}
		}
		return s.toString();
	}
}
