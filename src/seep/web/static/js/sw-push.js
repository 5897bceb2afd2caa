// The service worker's push and notificationclick handlers (issue 27 item 4), imported by
// /sw.js (seep.web.pwa). Empty until the push notifications land.
