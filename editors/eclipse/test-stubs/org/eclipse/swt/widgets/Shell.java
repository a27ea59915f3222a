// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.swt.widgets;

public class Shell extends Composite {
  public boolean isDisposed() { return false; }
  public Display getDisplay() { return new Display(); }
}
