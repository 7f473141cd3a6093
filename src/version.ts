/** etcd-doctor's version, as package.json says it (test/unit/version.test.ts keeps the two equal). */
export const VERSION = '0.1.0';
