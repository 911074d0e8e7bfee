import { channelConversationsContract, onSqlDialects } from "@aide/testing/effect"
import * as ChannelConversations from "../src/channels/gateway/ChannelConversations.js"
import * as SqlChannelConversations from "../src/channels/gateway/SqlChannelConversations.js"

// The contract every ChannelConversations store keeps (exported by @aide/testing for third parties).
onSqlDialects(channelConversationsContract, "SqlChannelConversations", SqlChannelConversations.layer)
channelConversationsContract("ChannelConversations.layerMemory", ChannelConversations.layerMemory)
