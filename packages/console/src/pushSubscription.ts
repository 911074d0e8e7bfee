import { client } from "./api.js"

/** Whether this browser can receive Web Push at all (service worker, PushManager, Notification). */
export const pushSupported = () =>
  typeof navigator !== "undefined" &&
  "serviceWorker" in navigator &&
  typeof window !== "undefined" &&
  "PushManager" in window &&
  "Notification" in window

const registration = () => navigator.serviceWorker.ready

/** base64url → the bytes `applicationServerKey` wants. */
const keyBytes = (base64url: string) => {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/")
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

/** This browser's current subscription, if notifications are on here. */
export const currentSubscription = async () => (await registration()).pushManager.getSubscription()

/**
 * Turns notifications on: asks permission, subscribes with the server's VAPID key and hands the
 * subscription to the server. Throws with a sentence when permission is refused.
 */
export const enablePush = async () => {
  const permission = await Notification.requestPermission()
  if (permission !== "granted") throw new Error("notifications are blocked for this site in the browser's settings")
  const applicationServerKey = keyBytes(await client.push.vapidPublicKey())
  const manager = (await registration()).pushManager
  const subscription = await manager.subscribe({ userVisibleOnly: true, applicationServerKey })
  const json = subscription.toJSON()
  await client.push.subscribe({
    endpoint: subscription.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
  })
}

/** Turns notifications off here: the server forgets the endpoint, the browser drops the subscription. */
export const disablePush = async () => {
  const subscription = await currentSubscription()
  if (subscription === null) return
  await client.push.unsubscribe(subscription.endpoint).catch(() => undefined)
  await subscription.unsubscribe()
}
