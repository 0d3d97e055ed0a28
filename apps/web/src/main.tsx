/**
 * The entry point stays tiny: the public landing page (/) boots on its own, without the back office's UI kit and
 * translations (docs/operations.md, "Page weight"); every other path loads the application.
 */
if (window.location.pathname === '/') void import('./areas/site/boot');
else void import('./app');
