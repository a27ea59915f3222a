package org.ppo.eclipse;

import org.eclipse.core.runtime.preferences.InstanceScope;
import org.eclipse.jface.preference.ComboFieldEditor;
import org.eclipse.jface.preference.FieldEditorPreferencePage;
import org.eclipse.jface.preference.FileFieldEditor;
import org.eclipse.ui.IWorkbench;
import org.eclipse.ui.IWorkbenchPreferencePage;
import org.eclipse.ui.preferences.ScopedPreferenceStore;

/** Window > Preferences > ppo. The server reads them when it starts (reopen the editors). */
public class PpoPreferencePage extends FieldEditorPreferencePage implements IWorkbenchPreferencePage {
	public PpoPreferencePage() {
		super(GRID);
		setPreferenceStore(new ScopedPreferenceStore(InstanceScope.INSTANCE, Activator.PLUGIN_ID));
		setDescription("The ppo language server (ppo lsp). Changes apply when the server next starts.");
	}

	@Override
	public void init(IWorkbench workbench) {
	}

	@Override
	protected void createFieldEditors() {
		addField(new FileFieldEditor(PreferenceConstants.SERVER_PATH, "ppo &binary (empty: ppo on the PATH):",
				getFieldEditorParent()));
		addField(new ComboFieldEditor(PreferenceConstants.TARGET, "&Target:",
				new String[][] { { "OpenMP", "openmp" }, { "oneTBB (C++)", "tbb" } }, getFieldEditorParent()));
		addField(new ComboFieldEditor(PreferenceConstants.HINTS_PARALLELIZABLE, "Parallelizable loops (PPO130):",
				new String[][] { { "off", "off" }, { "hint", "hint" }, { "information", "information" },
						{ "warning", "warning" } },
				getFieldEditorParent()));
	}
}
