/** A patch in Codex's apply_patch format that adds hello.txt: what a scripted model sends it. */
export const ADD_FILE_PATCH =
  '*** Begin Patch\n*** Add File: hello.txt\n+Hello from the patch.\n*** End Patch\n';
