// Compile-time stand-in for the Eclipse/LSP4E API (tests only; see README.md).
package org.eclipse.core.runtime;

import org.eclipse.core.runtime.preferences.*;

/** Test stub: preferences are Java system properties QUALIFIER/KEY, then the defaults. */
public final class Platform {
  public static IPreferencesService getPreferencesService() {
    return (q, k, d, c) -> System.getProperty(q + "/" + k, DefaultScope.INSTANCE.getNode(q).get(k, d));
  }
}
