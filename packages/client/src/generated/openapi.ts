/**
 * Generated from the server's OpenAPI document (`OpenApi.fromApi(AideApi)`, what
 * `GET /api/openapi.json` serves) by openapi-typescript. Do not edit: run
 * `pnpm --filter @aide/client generate`; test/openapi-types.test.ts fails when this is stale.
 */

export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service status: version, and whether setup or login comes next */
        get: operations["status.status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set the owner password (first run only) */
        post: operations["authPublic.setup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in with the password */
        post: operations["authPublic.login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Trade a refresh token for a new token pair */
        post: operations["authPublic.refresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke the current session */
        post: operations["authProtected.logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/change-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the password; every other session is revoked */
        post: operations["authProtected.changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List active sessions */
        get: operations["authProtected.listSessions"];
        put?: never;
        post?: never;
        /** Revoke every session, the current one included */
        delete: operations["authProtected.revokeAllSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one session */
        delete: operations["authProtected.revokeSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a message and stream the answer (SSE) */
        post: operations["chat.send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or deny a run's tool calls and stream the continuation (SSE) */
        post: operations["chat.approve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat/{threadId}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reconnect to a thread's running stream (SSE), or 204 */
        get: operations["chat.resume"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat/{threadId}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a thread's running answer */
        post: operations["chat.stop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List root threads, newest first, one page at a time */
        get: operations["threads.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/threads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a thread with its messages and branches */
        get: operations["threads.detail"];
        put?: never;
        post?: never;
        /** Delete a thread and its messages */
        delete: operations["threads.delete"];
        options?: never;
        head?: never;
        /** Rename a thread (null clears the title) */
        patch: operations["threads.rename"];
        trace?: never;
    };
    "/api/threads/{id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fork a thread before a message into a new branch */
        post: operations["threads.fork"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the config, defaults included */
        get: operations["config.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the config by JSON merge patch */
        patch: operations["config.patch"];
        trace?: never;
    };
    "/api/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List AI providers and whether their keys are set */
        get: operations["models.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/models/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List provider connections (masked)
         * @description Not in SPEC (docs/api-decisions.md): the owner's provider connections, sealed at rest, never answered in clear.
         */
        get: operations["models.connections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/models/connections/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a provider's connection; takes effect at once
         * @description Not in SPEC (docs/api-decisions.md): the owner's provider connections, sealed at rest, never answered in clear. Replaces the provider's connection. 400 for an unknown provider or variable, a missing required variable, an empty, oversized or control-character value, a base URL that is not http(s); 409 when the host's environment sets the provider.
         */
        put: operations["models.connect"];
        post?: never;
        /**
         * Remove a provider's connection
         * @description Not in SPEC (docs/api-decisions.md): the owner's provider connections, sealed at rest, never answered in clear.
         */
        delete: operations["models.disconnect"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/models/connections/{provider}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List the provider's models with its current values
         * @description Not in SPEC (docs/api-decisions.md): the owner's provider connections, sealed at rest, never answered in clear. Asks the provider for its models through the registry (environment first, then the connection), within seconds; a failure is answered as { ok: false, error } in words.
         */
        post: operations["models.testConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List plugins, their settings and their problems */
        get: operations["plugins.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/{id}/pairings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a channel plugin's pairing requests and approved senders */
        get: operations["plugins.pairings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/{id}/pairings/{code}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a pairing request: its sender may talk from then on */
        post: operations["plugins.approvePairing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/{id}/pairings/{code}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject a pairing request */
        post: operations["plugins.rejectPairing"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/{id}/senders/{channelId}/{senderId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Take an approved sender off a channel's list */
        delete: operations["plugins.removeSender"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/inbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List inbox messages, active or archived */
        get: operations["inbox.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/inbox/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an inbox message */
        get: operations["inbox.get"];
        put?: never;
        post?: never;
        /** Delete an inbox message */
        delete: operations["inbox.delete"];
        options?: never;
        head?: never;
        /** Mark an inbox message read, unread, archived or active */
        patch: operations["inbox.update"];
        trace?: never;
    };
    "/api/schedule/destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List destinations for scheduled results */
        get: operations["scheduleDestinations.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List scheduled tasks and the heartbeat */
        get: operations["schedule.list"];
        put?: never;
        /** Create a scheduled task (cron or one-off) */
        post: operations["schedule.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedule/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the heartbeat */
        get: operations["schedule.heartbeat"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the heartbeat */
        patch: operations["schedule.updateHeartbeat"];
        trace?: never;
    };
    "/api/schedule/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a scheduled task */
        get: operations["schedule.get"];
        put?: never;
        post?: never;
        /** Delete a scheduled task */
        delete: operations["schedule.delete"];
        options?: never;
        head?: never;
        /** Change a scheduled task */
        patch: operations["schedule.update"];
        trace?: never;
    };
    "/api/mcp-servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List MCP servers with their state and tools */
        get: operations["mcp.list"];
        put?: never;
        /**
         * Add an MCP server (convenience over PATCH /api/config)
         * @description Not in SPEC: the same change as PATCH /api/config with { mcpServers: { <id>: config } }, refused with 409 when the id exists; without an id the server makes one (a UUID). Answers { id, ...config } (header values redacted) with the state GET /api/mcp-servers lists (tools: [] while it connects).
         */
        post: operations["mcp.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp-servers/oauth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth redirect URI of remote MCP servers (browser only) */
        get: operations["mcpOAuth.callback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/consent/inspect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check an MCP client's authorization request and show what it asks for */
        post: operations["mcpGrants.inspectConsent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/consent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve (with the tools ticked) or deny an MCP client's authorization request */
        post: operations["mcpGrants.decideConsent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the MCP clients holding a grant */
        get: operations["mcpGrants.listClients"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mcp/clients/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an MCP client's grant: its tokens fail on their next call */
        delete: operations["mcpGrants.revokeClient"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/memory/working": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read working memory */
        get: operations["memory.getWorking"];
        /** Overwrite working memory (409 while it is disabled) */
        put: operations["memory.putWorking"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/memory/observations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the observation log (null while observational memory is off) */
        get: operations["memory.getObservations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/memory/record": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the memory record and thresholds (both null while observational memory is off) */
        get: operations["memory.getRecord"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/push/vapid-public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The server's VAPID public key, to subscribe with */
        get: operations["push.vapidPublicKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/push/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Subscribe a browser to notifications (its PushSubscription JSON) */
        post: operations["push.subscribe"];
        /** Unsubscribe a browser, by its endpoint */
        delete: operations["push.unsubscribe"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ServiceStatus: {
            name: string;
            version: string;
            runtime: string;
            serverless: boolean;
            auth: {
                setup: boolean;
                authenticated: boolean;
            };
        };
        /** @description The request is malformed or fails validation */
        Error400: {
            error: string;
        };
        /** @description Missing, invalid, expired or revoked credentials */
        Error401: {
            error: string;
        };
        /** @description No such resource */
        Error404: {
            error: string;
        };
        /** @description Unexpected failure; details are in the server log */
        Error500: {
            error: string;
        };
        PasswordBody: {
            password: string;
        };
        /** @description a string to be decoded into a Date */
        Date: string;
        /** @description Rate limit exceeded; see Retry-After */
        Error429: {
            error: string;
        };
        /** @description Conflicts with the current state */
        Error409: {
            error: string;
        };
        /** @description Not allowed in the current state */
        Error403: {
            error: string;
        };
        TokenPair: {
            token: string;
            refreshToken: string;
            expiresAt: components["schemas"]["Date"];
            refreshExpiresAt: components["schemas"]["Date"];
        };
        RefreshBody: {
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            refreshToken: string;
        };
        ChangePasswordBody: {
            currentPassword: string;
            newPassword: string;
        };
        Session: {
            id: string;
            createdAt: components["schemas"]["Date"];
            expiresAt: components["schemas"]["Date"];
            userAgent: string;
            ip: string;
            current: boolean;
        };
        ChatBody: {
            /**
             * minItems(1)
             * @description an array of at least 1 item(s)
             */
            parts: components["schemas"]["ChatPart"][];
            /** @description a string matching the pattern ^[\w.:-]{1,100}$ */
            threadId?: string;
            /** @description a string matching the pattern ^[\w.:-]{1,100}$ */
            messageId?: string;
        };
        ChatPart: {
            /** @enum {string} */
            type: "text";
            text: string;
        } | {
            /** @enum {string} */
            type: "file";
            /** @description a string matching the pattern ^[\w.+-]+\/[\w.+-]+$ */
            mediaType: string;
            url: string;
            filename?: string;
        };
        /** @description An attachment of a type the model cannot take */
        Error415: {
            error: string;
        };
        ApproveRequest: {
            /**
             * minLength(1)
             * @description The suspended run: `messageMetadata.runId` of its stream (or X-Run-Id)
             */
            runId: string;
            /**
             * minLength(1)
             * @description The run's thread
             */
            threadId: string;
            /** @description One call of the run; every undecided call when omitted */
            toolCallId?: string;
            /** @description The assistant message holding the call; checked when given */
            messageId?: string;
            /** @description true runs the call(s), false denies them (the model is told) */
            approved: boolean;
        };
        /** @description The server is at capacity; see Retry-After */
        Error503: {
            error: string;
        };
        ThreadList: {
            threads: components["schemas"]["ThreadSummary"][];
            total: components["schemas"]["Int"];
            page: components["schemas"]["Int"];
            perPage: components["schemas"]["Int"] | false;
            hasMore: boolean;
            activeStreamIds: string[];
        };
        ThreadSummary: {
            id: string;
            title: string | null;
            createdAt: components["schemas"]["Date"];
            updatedAt: components["schemas"]["Date"];
            activeThreadId: string;
            threadIds: string[];
        };
        /**
         * int
         * @description an integer
         */
        Int: number;
        ThreadDetail: {
            thread: {
                id: string;
                title: string | null;
                createdAt: components["schemas"]["Date"];
                updatedAt: components["schemas"]["Date"];
            };
            messages: components["schemas"]["Message"][];
            forks: {
                [key: string]: {
                    id: string;
                    title?: string;
                }[];
            };
            forkInfo: components["schemas"]["ForkInfo"] | null;
        };
        Message: {
            id: string;
            /** @enum {string} */
            role: "user" | "assistant" | "system";
            parts: unknown[];
            /** unknown */
            metadata?: unknown;
        };
        ForkInfo: {
            sourceThreadId: string;
            forkPointIndex: number;
            siblings: {
                id: string;
                title?: string;
            }[];
        };
        ForkBody: {
            messageId: string;
        };
        ForkResult: {
            thread: {
                id: string;
                createdAt: components["schemas"]["Date"];
                updatedAt: components["schemas"]["Date"];
            };
            clonedMessageCount: components["schemas"]["Int"];
        };
        RenameBody: {
            title: string | null;
        };
        Thread: {
            id: string;
            title: string | null;
            createdAt: components["schemas"]["Date"];
            updatedAt: components["schemas"]["Date"];
        };
        AppConfig: {
            /** @description Who the assistant is */
            identity: {
                /**
                 * minLength(1)
                 * @description What the assistant calls itself
                 */
                name: string;
            };
            /** @description IANA time zone of schedules and of the time the assistant is told */
            timezone: components["schemas"]["TimeZone"];
            /** @description How the assistant behaves */
            personality: {
                /** @description The system prompt of every conversation */
                systemPrompt: string;
            };
            /** @description Models in use */
            models: {
                /** @description The model that answers chats */
                operator: components["schemas"]["OperatorModel"];
            };
            /** @description Per plugin id: enabled, and the fields the plugin declares */
            plugins: {
                [key: string]: components["schemas"]["PluginConfig"];
            };
            /** @description Memory: working, observational, semantic recall (docs/memory.md) */
            memory: {
                /** @description Master switch: false turns every kind of memory off */
                enabled: boolean;
                /** @description Observer/reflector model; the operator's model when absent */
                model?: components["schemas"]["MemoryModel"];
                /** @description Working memory */
                workingMemory: {
                    /** @description Whether working memory is on */
                    enabled: boolean;
                };
                /** @description Observational memory (observer and reflector) */
                observationalMemory: {
                    /** @description Whether observational memory (observer and reflector) is on */
                    enabled: boolean;
                    /**
                     * @description resource: one memory across every thread (default); thread: one per thread
                     * @enum {string}
                     */
                    scope: "resource" | "thread";
                    /**
                     * between(50, 10000000)
                     * @description Unobserved message tokens that trigger the observer (default 30000)
                     */
                    messageTokens: number;
                    /**
                     * between(50, 10000000)
                     * @description Observation log tokens that trigger the reflector (default 40000)
                     */
                    observationTokens: number;
                    /**
                     * between(1000, 1000000000)
                     * @description Most model tokens memory may spend per day, in the owner's time zone (default 1000000)
                     */
                    dailyTokenBudget: number;
                };
                /** @description Semantic recall of earlier messages from other threads */
                semanticRecall: {
                    /** @description Whether semantic recall is on */
                    enabled: boolean;
                    /** @description `provider/model` of an embedding model; full-text search when absent */
                    embedder?: string;
                    /**
                     * between(1, 20)
                     * @description How many earlier messages are recalled per turn (default 4)
                     */
                    topK: number;
                    /**
                     * between(0, 5)
                     * @description Neighbours kept before and after each recalled message (default 1)
                     */
                    messageRange: number;
                };
            };
            /** @description Scheduled tasks and the heartbeat */
            schedule: {
                /** @description Master switch: off, no task or heartbeat runs */
                enabled: boolean;
                /** @description Scheduled tasks (also edited through /api/schedule) */
                tasks: components["schemas"]["ScheduledTaskConfig"][];
                /** @description The heartbeat (also edited through /api/schedule/heartbeat) */
                heartbeat?: components["schemas"]["HeartbeatConfig"];
            };
            /** @description Set once the first-run wizard is done */
            onboardingComplete: boolean;
            /** @description MCP servers by id */
            mcpServers: {
                [key: string]: components["schemas"]["McpServerConfig"];
            };
            /** @description Aide's own MCP endpoint /mcp: on or off, and its tools (docs/mcp-server.md) */
            mcpServer: {
                /** @description Whether /mcp answers (otherwise 404); default false */
                enabled: boolean;
                /** @description The tools MCP clients may see and call; default the read-only ones */
                tools: ("ask" | "approve" | "threads_search" | "memory_read" | "memory_update" | "inbox_list" | "inbox_mark_read" | "schedule_create" | "schedule_list" | "schedule_delete" | "notify")[];
            };
        };
        TimeZone: string;
        OperatorModel: {
            /**
             * minLength(1)
             * @description The model's provider
             */
            provider: string;
            /**
             * minLength(1)
             * @description The provider's model id, e.g. gpt-4.1-mini
             */
            model: string;
            /**
             * between(0, 2)
             * @description Sampling temperature, 0 to 2; the provider's default when absent
             */
            temperature?: number;
            /**
             * positive
             * @description Most tokens an answer may take; the provider's default when absent
             */
            maxTokens?: number;
        };
        PluginConfig: {
            /** @description Whether the plugin is loaded; default false */
            enabled?: boolean;
        } & {
            [key: string]: unknown;
        };
        MemoryModel: string | {
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            provider: string;
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            model: string;
        };
        ScheduledTaskConfig: {
            /** @description a string matching the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ */
            id: string;
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            name: string;
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            prompt: string;
            cron?: components["schemas"]["CronExpression"];
            runAt?: components["schemas"]["Timestamp"];
            enabled?: boolean;
            timezone?: components["schemas"]["TimeZone"];
            /**
             * positive
             * @description a positive number
             */
            maxRuns?: number;
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            destination?: string;
        };
        CronExpression: string;
        Timestamp: string;
        HeartbeatConfig: {
            enabled?: boolean;
            cron?: components["schemas"]["CronExpression"];
            tasks?: components["schemas"]["HeartbeatItem"][];
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            destination?: string;
            activeHours?: components["schemas"]["ActiveHours"];
        };
        HeartbeatItem: {
            /** @description a string matching the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ */
            id: string;
            /**
             * minLength(1)
             * @description a string at least 1 character(s) long
             */
            description: string;
            enabled: boolean;
        };
        ActiveHours: {
            /** @description a string matching the pattern ^([01]\d|2[0-3]):[0-5]\d$ */
            start: string;
            /** @description a string matching the pattern ^([01]\d|2[0-3]):[0-5]\d$ */
            end: string;
        };
        McpServerConfig: {
            /**
             * minLength(1)
             * @description stdio: the program to run (exactly one of command and url)
             */
            command?: string;
            /** @description stdio: its arguments */
            args?: string[];
            /** @description HTTP: the server's http(s) URL (exactly one of command and url) */
            url?: string;
            /** @description Whether it is connected; default true */
            enabled?: boolean;
            /** @description Display name; default the id */
            name?: string;
            /** @description stdio: names of host environment variables the process gets */
            env?: string[];
            /** @description Whether each tool call waits for the owner's approval; default true */
            requireApproval?: boolean;
            /** @description HTTP: static headers sent to the server's own origin; values are secrets, shown redacted */
            headers?: {
                [key: string]: string;
            };
            /** @description HTTP: authorize with OAuth (the owner completes it in a browser) */
            oauth?: boolean;
            /** @description stdio: working directory, absolute or under ~/; default the home directory */
            cwd?: string;
        };
        /** @description Partial config, deep-merged into the stored one; null deletes a key (its default comes back). A header value sent back as the redacted placeholder keeps the stored secret. */
        ConfigPatch: {
            /** @description Who the assistant is */
            identity?: {
                /** @description What the assistant calls itself */
                name?: string | null;
            } | null;
            /** @description IANA time zone of schedules and of the time the assistant is told */
            timezone?: components["schemas"]["TimeZone"] | null;
            /** @description How the assistant behaves */
            personality?: {
                /** @description The system prompt of every conversation */
                systemPrompt?: string | null;
            } | null;
            /** @description Models in use */
            models?: {
                /** @description The model that answers chats */
                operator?: components["schemas"]["OperatorModelPatch"] | null;
            } | null;
            /** @description Per plugin id: enabled, and the fields the plugin declares */
            plugins?: {
                [key: string]: components["schemas"]["PluginConfigPatch"] | null;
            } | null;
            /** @description Memory: working, observational, semantic recall (docs/memory.md) */
            memory?: {
                /** @description Master switch: false turns every kind of memory off */
                enabled?: boolean | null;
                /** @description Observer/reflector model; the operator's model when absent */
                model?: components["schemas"]["MemoryModel"] | null;
                /** @description Working memory */
                workingMemory?: {
                    /** @description Whether working memory is on */
                    enabled?: boolean | null;
                } | null;
                /** @description Observational memory (observer and reflector) */
                observationalMemory?: {
                    /** @description Whether observational memory (observer and reflector) is on */
                    enabled?: boolean | null;
                    /** @description resource: one memory across every thread (default); thread: one per thread */
                    scope?: ("resource" | "thread") | null;
                    /** @description Unobserved message tokens that trigger the observer (default 30000) */
                    messageTokens?: number | null;
                    /** @description Observation log tokens that trigger the reflector (default 40000) */
                    observationTokens?: number | null;
                    /** @description Most model tokens memory may spend per day, in the owner's time zone (default 1000000) */
                    dailyTokenBudget?: number | null;
                } | null;
                /** @description Semantic recall of earlier messages from other threads */
                semanticRecall?: {
                    /** @description Whether semantic recall is on */
                    enabled?: boolean | null;
                    /** @description `provider/model` of an embedding model; full-text search when absent */
                    embedder?: string | null;
                    /** @description How many earlier messages are recalled per turn (default 4) */
                    topK?: number | null;
                    /** @description Neighbours kept before and after each recalled message (default 1) */
                    messageRange?: number | null;
                } | null;
            } | null;
            /** @description Scheduled tasks and the heartbeat */
            schedule?: {
                /** @description Master switch: off, no task or heartbeat runs */
                enabled?: boolean | null;
                /** @description Scheduled tasks (also edited through /api/schedule) */
                tasks?: components["schemas"]["ScheduledTaskConfig"][] | null;
                /** @description The heartbeat (also edited through /api/schedule/heartbeat) */
                heartbeat?: components["schemas"]["HeartbeatConfigPatch"] | null;
            } | null;
            /** @description Set once the first-run wizard is done */
            onboardingComplete?: boolean | null;
            /** @description MCP servers by id */
            mcpServers?: {
                [key: string]: components["schemas"]["McpServerConfigPatch"] | null;
            } | null;
            /** @description Aide's own MCP endpoint /mcp: on or off, and its tools (docs/mcp-server.md) */
            mcpServer?: {
                /** @description Whether /mcp answers (otherwise 404); default false */
                enabled?: boolean | null;
                /** @description The tools MCP clients may see and call; default the read-only ones */
                tools?: ("ask" | "approve" | "threads_search" | "memory_read" | "memory_update" | "inbox_list" | "inbox_mark_read" | "schedule_create" | "schedule_list" | "schedule_delete" | "notify")[] | null;
            } | null;
        };
        OperatorModelPatch: {
            /** @description The model's provider */
            provider?: string | null;
            /** @description The provider's model id, e.g. gpt-4.1-mini */
            model?: string | null;
            /** @description Sampling temperature, 0 to 2; the provider's default when absent */
            temperature?: number | null;
            /** @description Most tokens an answer may take; the provider's default when absent */
            maxTokens?: number | null;
        };
        PluginConfigPatch: {
            enabled?: boolean | null;
        } & {
            [key: string]: unknown;
        };
        HeartbeatConfigPatch: {
            enabled?: boolean | null;
            cron?: components["schemas"]["CronExpression"] | null;
            tasks?: components["schemas"]["HeartbeatItem"][] | null;
            destination?: string | null;
            activeHours?: components["schemas"]["ActiveHoursPatch"] | null;
        };
        ActiveHoursPatch: {
            start?: string | null;
            end?: string | null;
        };
        McpServerConfigPatch: {
            /** @description stdio: the program to run (exactly one of command and url) */
            command?: string | null;
            /** @description stdio: its arguments */
            args?: string[] | null;
            /** @description HTTP: the server's http(s) URL (exactly one of command and url) */
            url?: string | null;
            /** @description Whether it is connected; default true */
            enabled?: boolean | null;
            /** @description Display name; default the id */
            name?: string | null;
            /** @description stdio: names of host environment variables the process gets */
            env?: string[] | null;
            /** @description Whether each tool call waits for the owner's approval; default true */
            requireApproval?: boolean | null;
            /** @description HTTP: static headers sent to the server's own origin; values are secrets, shown redacted */
            headers?: {
                [key: string]: string | null;
            } | null;
            /** @description HTTP: authorize with OAuth (the owner completes it in a browser) */
            oauth?: boolean | null;
            /** @description stdio: working directory, absolute or under ~/; default the home directory */
            cwd?: string | null;
        };
        ProviderList: {
            providers: components["schemas"]["Provider"][];
        };
        Provider: {
            id: string;
            name: string;
            models: string[];
            /** @description false when a required environment variable is unset (a local server without one: when it does not answer at its default address) */
            configured: boolean;
            docUrl: string;
            gateway: null;
            envVars: string[];
        };
        ConnectionList: {
            connections: components["schemas"]["Connection"][];
            /** @description ids of the providers the host's environment sets (they win over connections; edit them there) */
            environment: string[];
        };
        Connection: {
            provider: string;
            variables: {
                name: string;
                /** @description •••• and at most the value's last 4 characters */
                hint: string;
            }[];
            updatedAt: string;
            /** @description false when the stored values do not open with this server's secret (it changed): set them again */
            readable: boolean;
            /** @description the host's environment sets this provider: it wins, the connection is ignored */
            setByEnvironment: boolean;
        };
        ConnectionInput: {
            values: {
                [key: string]: string;
            };
        };
        ConnectionTest: {
            ok: boolean;
            models: string[];
            /** @description false for a provider that does not list its models (its suggestions are shown) */
            listed: boolean;
            error?: string;
        };
        PluginList: {
            plugins: components["schemas"]["Plugin"][];
        };
        Plugin: {
            id: string;
            name: string;
            description: string | null;
            author: string | null;
            icon: string | null;
            version: string | null;
            homepage: string | null;
            repository: string | null;
            license: string | null;
            envVars: {
                name: string;
                required: boolean;
                configured: boolean;
            }[];
            envConfigured: boolean;
            configFields: components["schemas"]["ConfigFieldDescriptor"][];
            enabled: boolean;
            config: {
                [key: string]: unknown;
            };
            provides: {
                tools?: {
                    toolIds: string[];
                    tools: components["schemas"]["ToolManifest"][];
                    /** @enum {string} */
                    sandbox: "compartment" | "host";
                    permissions?: components["schemas"]["Permissions"];
                    requireApproval: boolean;
                    alerts: components["schemas"]["Alert"][];
                };
                agents?: {
                    agentIds: string[];
                    agents: unknown[];
                    alerts: components["schemas"]["Alert"][];
                };
                channels?: {
                    loaded: boolean;
                    webhook: boolean | null;
                    realtime: boolean | null;
                    webhookPath: string | null;
                    connection?: {
                        /** @enum {string} */
                        state: "standby" | "connected" | "reconnecting";
                        reason: string | null;
                        failures: number;
                        since: string;
                    };
                };
            };
            validationErrors: string[];
        };
        ConfigFieldDescriptor: {
            /** @description a string matching the pattern ^[A-Za-z_][A-Za-z0-9_]{0,63}$ */
            key: string;
            /**
             * maxLength(200)
             * @description a string at most 200 character(s) long
             */
            label: string;
            /** @enum {string} */
            type: "text" | "number" | "password" | "enum" | "boolean";
            required?: boolean;
            placeholder?: string;
            description?: string;
            options?: {
                value: string;
                label?: string;
            }[];
        };
        ToolManifest: {
            id: string;
            name: string;
            description: string;
        };
        Permissions: {
            time?: boolean;
            random?: boolean;
            env?: string[];
            /** @description Hosts the brokered fetch, webSocket and connect may reach: `api.example.com`, `*.example.com` (subdomains), `imap.example.com:993` (that port only; `connect` needs a port), or `config:<key>`: the host (and port) the owner puts in the setting <key> */
            network?: string[];
            fs?: string[];
        };
        Alert: {
            /** @enum {string} */
            level: "info" | "warning" | "error";
            message: string;
        };
        PairingList: {
            pairings: components["schemas"]["Pairing"][];
            senders: components["schemas"]["ApprovedSender"][];
        };
        Pairing: {
            channelId: string;
            code: string;
            senderId: string;
            senderName: string | null;
            createdAt: string;
            expiresAt: string;
        };
        ApprovedSender: {
            channelId: string;
            senderId: string;
            senderName: string | null;
            approvedAt: string;
        };
        InboxList: {
            messages: components["schemas"]["InboxMessage"][];
        };
        InboxMessage: {
            id: string;
            subject: string;
            body: string;
            threadId: string | null;
            destination: string;
            /** @enum {string} */
            status: "pending" | "sent" | "failed";
            read: boolean;
            createdAt: components["schemas"]["Date"];
            archivedAt: components["schemas"]["Date"] | null;
        };
        InboxPatch: {
            /** @description Marks the message read or unread */
            read?: boolean;
            /** @description true archives (sets archivedAt), false unarchives (clears it) */
            archived?: boolean;
        };
        DestinationList: {
            destinations: string[];
        };
        ScheduleList: {
            enabled: boolean;
            tasks: components["schemas"]["ScheduledTask"][];
        };
        ScheduledTask: {
            id: string;
            name: string;
            cron?: string;
            runAt?: string;
            prompt: string;
            enabled: boolean;
            timezone?: string;
            maxRuns?: number;
            destination?: string;
            nextRun: components["schemas"]["Date"] | null;
            isRunning: boolean;
        };
        /** @description A new task: a name, a prompt and exactly one of cron (recurring) or runAt (one time) */
        ScheduledTaskInput: {
            /**
             * minLength(1)
             * @description What the task is called (the title of its thread)
             */
            name: string;
            /**
             * minLength(1)
             * @description What the assistant is asked at each run
             */
            prompt: string;
            /** @description Recurring: 5 fields (minute hour day month weekday) or 6 (seconds first); exactly one of cron and runAt */
            cron?: components["schemas"]["CronExpression"] | null;
            /** @description One time: ISO 8601 with its offset (2026-05-01T09:00:00Z), in the future; exactly one of cron and runAt */
            runAt?: components["schemas"]["Timestamp"] | null;
            /** @description Whether the task runs; default true */
            enabled?: boolean | null;
            /** @description IANA time zone the cron is read in; default the config timezone */
            timezone?: components["schemas"]["TimeZone"] | null;
            /** @description Recurring tasks only: how many runs before the task stops */
            maxRuns?: number | null;
            /** @description Where results go: one of GET /api/schedule/destinations; without one, the result stays in the task's thread */
            destination?: string | null;
            /**
             * unknown
             * @description Read-only (generated): ignored
             */
            id?: unknown;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            nextRun?: unknown;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            isRunning?: unknown;
        };
        Heartbeat: {
            enabled: boolean;
            cron: string;
            tasks: components["schemas"]["HeartbeatChecklistItem"][];
            destination: string | null;
            activeHours: {
                start: string;
                end: string;
            } | null;
            nextRun: components["schemas"]["Date"] | null;
            isRunning: boolean;
        };
        HeartbeatChecklistItem: {
            id: string;
            description: string;
            enabled: boolean;
        };
        /** @description Partial heartbeat: null clears destination and activeHours */
        HeartbeatPatch: {
            /** @description Whether the heartbeat runs */
            enabled?: boolean;
            /** @description When it beats: 5 fields or 6 (seconds first) */
            cron?: components["schemas"]["CronExpression"];
            /** @description The checklist, replaced as a whole */
            tasks?: {
                /** @description Kept when given (a UUID); generated when missing */
                id?: string;
                /**
                 * minLength(1)
                 * @description What to check at each beat
                 */
                description: string;
                /** @description Default true */
                enabled?: boolean;
            }[];
            /** @description Where results go (GET /api/schedule/destinations); null: the web inbox */
            destination?: string | null;
            /** @description When beats may run, in the config timezone; null: any time */
            activeHours?: components["schemas"]["ActiveHours"] | null;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            nextRun?: unknown;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            isRunning?: unknown;
        };
        /** @description Partial task: null clears an optional field; setting cron clears runAt (and vice versa, runAt also clears maxRuns) */
        ScheduledTaskPatch: {
            /**
             * minLength(1)
             * @description What the task is called (the title of its thread)
             */
            name?: string;
            /**
             * minLength(1)
             * @description What the assistant is asked at each run
             */
            prompt?: string;
            /** @description Recurring: 5 fields (minute hour day month weekday) or 6 (seconds first); exactly one of cron and runAt */
            cron?: components["schemas"]["CronExpression"] | null;
            /** @description One time: ISO 8601 with its offset (2026-05-01T09:00:00Z), in the future; exactly one of cron and runAt */
            runAt?: components["schemas"]["Timestamp"] | null;
            /** @description Whether the task runs; default true */
            enabled?: boolean | null;
            /** @description IANA time zone the cron is read in; default the config timezone */
            timezone?: components["schemas"]["TimeZone"] | null;
            /** @description Recurring tasks only: how many runs before the task stops */
            maxRuns?: number | null;
            /** @description Where results go: one of GET /api/schedule/destinations; without one, the result stays in the task's thread */
            destination?: string | null;
            /**
             * unknown
             * @description Read-only (generated): ignored
             */
            id?: unknown;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            nextRun?: unknown;
            /**
             * unknown
             * @description Read-only (computed): ignored
             */
            isRunning?: unknown;
        };
        McpServerList: {
            servers: components["schemas"]["McpServer"][];
        };
        McpServer: {
            id: string;
            name: string;
            /** @enum {string} */
            type: "stdio" | "http";
            enabled: boolean;
            requireApproval: boolean;
            tools: {
                id: string;
                name: string;
                description: string;
            }[];
            error: string | null;
            authUrl?: string;
        };
        /** @description id (optional: a new UUID when absent) and the server's config (command/args/env/cwd for stdio, url/headers/oauth for HTTP, name, enabled, requireApproval): the same change as PATCH /api/config with { mcpServers: { <id>: config } } */
        NewMcpServer: {
            /**
             * minLength(1)
             * @description The server's id: its key under mcpServers; a new UUID when absent
             */
            id?: string;
            /** @description stdio: the program to run (exactly one of command and url) */
            command?: string | null;
            /** @description stdio: its arguments */
            args?: string[] | null;
            /** @description HTTP: the server's http(s) URL (exactly one of command and url) */
            url?: string | null;
            /** @description Whether it is connected; default true */
            enabled?: boolean | null;
            /** @description Display name; default the id */
            name?: string | null;
            /** @description stdio: names of host environment variables the process gets */
            env?: string[] | null;
            /** @description Whether each tool call waits for the owner's approval; default true */
            requireApproval?: boolean | null;
            /** @description HTTP: static headers sent to the server's own origin; values are secrets, shown redacted */
            headers?: {
                [key: string]: string | null;
            } | null;
            /** @description HTTP: authorize with OAuth (the owner completes it in a browser) */
            oauth?: boolean | null;
            /** @description stdio: working directory, absolute or under ~/; default the home directory */
            cwd?: string | null;
        };
        McpOAuthCallbackParams: {
            code?: string;
            state?: string;
            error?: string;
            error_description?: string;
        };
        ConsentRequest: {
            /**
             * maxLength(8192)
             * @description a string at most 8192 character(s) long
             */
            request: string;
        };
        ConsentDetails: {
            clientId: string;
            clientName: string;
            redirectUri: string;
            tools: {
                name: string;
                writes: boolean;
            }[];
        };
        ConsentDecision: {
            /**
             * maxLength(8192)
             * @description a string at most 8192 character(s) long
             */
            request: string;
            approve: boolean;
            /**
             * maxItems(32)
             * @description an array of at most 32 item(s)
             */
            tools: string[];
        };
        ConsentRedirect: {
            redirectTo: string;
        };
        McpClientList: {
            clients: components["schemas"]["McpClientGrant"][];
        };
        McpClientGrant: {
            id: string;
            clientId: string;
            clientName: string;
            redirectUris: string[];
            tools: string[];
            createdAt: string;
            expiresAt: string;
        };
        WorkingMemory: {
            /** @description The markdown document; null before the first write, and while working memory is disabled */
            content: string | null;
        };
        WorkingMemoryUpdate: {
            /** @description The whole new document (markdown, at most 16 KiB as UTF-8) */
            content: string;
        };
        Observations: {
            /** @description The active observation log; null while observational memory is off or before the first observation */
            observations: string | null;
        };
        MemoryRecordView: {
            record: components["schemas"]["MemoryRecord"] | null;
            thresholds: components["schemas"]["MemoryThresholds"] | null;
        };
        MemoryRecord: {
            id: string;
            /** @enum {string} */
            scope: "resource" | "thread";
            /** @description Reflections in the active log's history */
            generationCount: number;
            /** @description Tokens of the active observation log */
            observationTokenCount: number;
            /** @description Tokens of the scope's unobserved messages */
            pendingMessageTokens: number;
            /** @description Message tokens covered by committed observations, lifetime (only grows) */
            totalTokensObserved: number;
            /** @description The observer is running now */
            isObserving: boolean;
            /** @description The reflector is running now */
            isReflecting: boolean;
            lastObservedAt: components["schemas"]["Date"] | null;
            updatedAt: components["schemas"]["Date"];
        };
        MemoryThresholds: {
            /** @enum {string} */
            scope: "resource" | "thread";
            messageTokens: number;
            observationTokens: number;
        };
        VapidPublicKey: {
            /** @description base64url P-256 point: the `applicationServerKey` */
            publicKey: string;
        };
        PushSubscription: {
            /**
             * maxLength(1024)
             * @description a string at most 1024 character(s) long
             */
            endpoint: string;
            keys: {
                /**
                 * maxLength(128)
                 * @description a string at most 128 character(s) long
                 */
                p256dh: string;
                /**
                 * maxLength(64)
                 * @description a string at most 64 character(s) long
                 */
                auth: string;
            };
        };
        PushEndpoint: {
            /**
             * maxLength(1024)
             * @description a string at most 1024 character(s) long
             */
            endpoint: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "status.status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ServiceStatus */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceStatus"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authPublic.setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordBody"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        token: string;
                        refreshToken: string;
                        expiresAt: components["schemas"]["Date"];
                        refreshExpiresAt: components["schemas"]["Date"];
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not allowed in the current state */
            403: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error403"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authPublic.login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordBody"];
            };
        };
        responses: {
            /** @description TokenPair */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not allowed in the current state */
            403: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error403"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authPublic.refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefreshBody"];
            };
        };
        responses: {
            /** @description TokenPair */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not allowed in the current state */
            403: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error403"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authProtected.logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authProtected.changePassword": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangePasswordBody"];
            };
        };
        responses: {
            /** @description TokenPair */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenPair"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not allowed in the current state */
            403: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error403"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authProtected.listSessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessions: components["schemas"]["Session"][];
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authProtected.revokeAllSessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        /** @enum {boolean} */
                        loggedOut: true;
                        revoked: number;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "authProtected.revokeSession": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        loggedOut: boolean;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "chat.send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatBody"];
            };
        };
        responses: {
            /** @description Server-Sent Events: `id: <n>` + `data: <UI message chunk JSON>`, ending with `data: [DONE]` */
            200: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id": string;
                    /** @description The run streaming: the `runId` of POST /api/chat/approve for its tool calls */
                    "X-Run-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description An attachment of a type the model cannot take */
            415: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error415"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "chat.approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApproveRequest"];
            };
        };
        responses: {
            /** @description Server-Sent Events: `id: <n>` + `data: <UI message chunk JSON>`, ending with `data: [DONE]` */
            200: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id": string;
                    /** @description The run streaming: the `runId` of POST /api/chat/approve for its tool calls */
                    "X-Run-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description An attachment of a type the model cannot take */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error415"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "chat.resume": {
        parameters: {
            query?: never;
            header?: {
                /** @description Last SSE event id received (sent by EventSource on reconnect); the stream resumes after it */
                "last-event-id"?: string;
            };
            path: {
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events: `id: <n>` + `data: <UI message chunk JSON>`, ending with `data: [DONE]` */
            200: {
                headers: {
                    /** @description The thread of the stream (new threads get a UUID) */
                    "X-Thread-Id": string;
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description No stream to resume: none running (a finished one only with Last-Event-ID) */
            204: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limit exceeded; see Retry-After */
            429: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
            /** @description The server is at capacity; see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": number;
                    /** @description Requests allowed per window for this client and route */
                    "X-RateLimit-Limit"?: number;
                    /** @description Requests left in the current window */
                    "X-RateLimit-Remaining"?: number;
                    /** @description Seconds until the window resets */
                    "X-RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    "chat.stop": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        stopped: boolean;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "threads.list": {
        parameters: {
            query?: {
                /** @description Page index, 0-based; default 0 */
                page?: number;
                /** @description Page size; default 50; `false` for every root thread */
                perPage?: number | false;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ThreadList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "threads.detail": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ThreadDetail */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadDetail"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "threads.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "threads.rename": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RenameBody"];
            };
        };
        responses: {
            /** @description Thread */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Thread"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "threads.fork": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForkBody"];
            };
        };
        responses: {
            /** @description ForkResult */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForkResult"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "config.get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description AppConfig */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppConfig"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "config.patch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfigPatch"];
            };
        };
        responses: {
            /** @description AppConfig */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppConfig"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "models.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ProviderList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "models.connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ConnectionList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "models.connect": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                provider: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConnectionInput"];
            };
        };
        responses: {
            /** @description Connection */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Connection"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "models.disconnect": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "models.testConnection": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ConnectionTest */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionTest"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "plugins.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PluginList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PluginList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "plugins.pairings": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description PairingList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PairingList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "plugins.approvePairing": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                id: string;
                /** @description a string at most 16 character(s) long */
                code: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pairing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pairing"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "plugins.rejectPairing": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                id: string;
                /** @description a string at most 16 character(s) long */
                code: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Pairing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Pairing"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "plugins.removeSender": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                id: string;
                /** @description a string at most 64 character(s) long */
                channelId: string;
                /** @description a string at most 320 character(s) long */
                senderId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        removed: string;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "inbox.list": {
        parameters: {
            query?: {
                /** @description `true` lists archived messages; default `false` (active messages) */
                archived?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description InboxList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboxList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "inbox.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description InboxMessage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboxMessage"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "inbox.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deleted: string;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "inbox.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InboxPatch"];
            };
        };
        responses: {
            /** @description InboxMessage */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboxMessage"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "scheduleDestinations.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description DestinationList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ScheduleList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScheduledTaskInput"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        cron?: string;
                        runAt?: string;
                        prompt: string;
                        enabled: boolean;
                        timezone?: string;
                        maxRuns?: number;
                        destination?: string;
                        nextRun: components["schemas"]["Date"] | null;
                        isRunning: boolean;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Heartbeat */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Heartbeat"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.updateHeartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HeartbeatPatch"];
            };
        };
        responses: {
            /** @description Heartbeat */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Heartbeat"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ScheduledTask */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledTask"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deleted: string;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "schedule.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScheduledTaskPatch"];
            };
        };
        responses: {
            /** @description ScheduledTask */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledTask"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcp.list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description McpServerList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpServerList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcp.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewMcpServer"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        /** @enum {string} */
                        type: "stdio" | "http";
                        enabled: boolean;
                        requireApproval: boolean;
                        tools: {
                            id: string;
                            name: string;
                            description: string;
                        }[];
                        error: string | null;
                        authUrl?: string;
                        /**
                         * minLength(1)
                         * @description stdio: the program to run (exactly one of command and url)
                         */
                        command?: string;
                        /** @description stdio: its arguments */
                        args?: string[];
                        /** @description HTTP: the server's http(s) URL (exactly one of command and url) */
                        url?: string;
                        /** @description stdio: names of host environment variables the process gets */
                        env?: string[];
                        /** @description HTTP: static headers sent to the server's own origin; values are secrets, shown redacted */
                        headers?: {
                            [key: string]: string;
                        };
                        /** @description HTTP: authorize with OAuth (the owner completes it in a browser) */
                        oauth?: boolean;
                        /** @description stdio: working directory, absolute or under ~/; default the home directory */
                        cwd?: string;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcpOAuth.callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A short page telling the owner that authorization is complete */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcpGrants.inspectConsent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConsentRequest"];
            };
        };
        responses: {
            /** @description ConsentDetails */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentDetails"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcpGrants.decideConsent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConsentDecision"];
            };
        };
        responses: {
            /** @description ConsentRedirect */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentRedirect"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcpGrants.listClients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description McpClientList */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpClientList"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "mcpGrants.revokeClient": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a string at most 64 character(s) long */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "memory.getWorking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description WorkingMemory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkingMemory"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "memory.putWorking": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkingMemoryUpdate"];
            };
        };
        responses: {
            /** @description WorkingMemory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkingMemory"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "memory.getObservations": {
        parameters: {
            query?: {
                /** @description a string at least 1 character(s) long */
                threadId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Observations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Observations"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "memory.getRecord": {
        parameters: {
            query?: {
                /** @description a string at least 1 character(s) long */
                threadId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description MemoryRecordView */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryRecordView"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "push.vapidPublicKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description VapidPublicKey */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VapidPublicKey"];
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "push.subscribe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushSubscription"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        subscribed: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
    "push.unsubscribe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushEndpoint"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        unsubscribed: true;
                    };
                };
            };
            /** @description The request is malformed or fails validation */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, expired or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Unexpected failure; details are in the server log */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error500"];
                };
            };
        };
    };
}
