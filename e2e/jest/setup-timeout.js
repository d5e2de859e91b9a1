// The e2e hooks boot and stop real service processes. `testTimeout` in a Jest project entry is
// ignored (it is a global option), so the e2e project sets its default here: 60 s for every test
// and hook that does not name its own.
/* global jest */
jest.setTimeout(60_000);
