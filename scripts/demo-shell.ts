/** Placeholder until the shell adapter lands: the demo prints the diagnosis and exits. */
export async function runDemoShell(_configPath: string): Promise<void> {}
