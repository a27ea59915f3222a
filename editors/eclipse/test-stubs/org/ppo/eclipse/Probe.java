// Test probe (not part of the plug-in): prints, one per line, the command line that
// PpoConnectionProvider launches (with the serverPath preference from the system property
// org.ppo.eclipse/serverPath), then its initializationOptions, then the handler's summary of a
// sample server answer. Run by cli/tests/it/eclipse_plugin.rs against the stubs.
package org.ppo.eclipse;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

public final class Probe {
	public static void main(String[] args) {
		new PreferenceInitializer().initializeDefaultPreferences();
		PpoConnectionProvider p = new PpoConnectionProvider();
		System.out.println("command\t" + String.join("\t", p.commandLine()));
		System.out.println("options\t" + p.getInitializationOptions(null));
		JsonObject answer = new JsonObject();
		answer.add("applied", new JsonPrimitive(true));
		answer.add("edits", new JsonPrimitive(3));
		JsonArray events = new JsonArray();
		events.add(new JsonPrimitive("dgemm.c: PS main#0 inserted"));
		answer.add("events", events);
		System.out.println("summary\t" + ParallelizeFileHandler.summary(answer).replace('\n', '|'));
	}
}
