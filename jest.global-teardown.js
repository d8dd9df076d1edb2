/** Stops the servers jest.global-setup.js started. */
module.exports = async () => {
  for (const stop of globalThis.__heraldTestServices ?? []) await stop();
};
