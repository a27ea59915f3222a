// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.commands;

public class ExecutionException extends Exception {
  private static final long serialVersionUID = 1L;
}
