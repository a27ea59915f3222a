// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.lsp4e.server;

import java.util.List;

public abstract class ProcessStreamConnectionProvider {
  private final List<String> commands;
  private final String workingDir;
  public ProcessStreamConnectionProvider(List<String> commands, String workingDir) {
    this.commands = commands;
    this.workingDir = workingDir;
  }
  protected List<String> getCommands() { return commands; }
  protected String getWorkingDirectory() { return workingDir; }
  public Object getInitializationOptions(java.net.URI rootUri) { return null; }
}
