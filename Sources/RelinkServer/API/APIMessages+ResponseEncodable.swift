import Hummingbird
import RelinkCore

// The API's answers are Core's message types, encoded by the context's `responseEncoder`.
extension CreateShortLinkResponse: ResponseEncodable {}
extension LinkListResponse: ResponseEncodable {}
extension ManagedLink: ResponseEncodable {}
extension LinkStatsResponse: ResponseEncodable {}
extension DeferredClicksResponse: ResponseEncodable {}
extension InstallAttributionResponse: ResponseEncodable {}
extension ReopenAttributionResponse: ResponseEncodable {}
extension WebhookInfo: ResponseEncodable {}
extension WebhookListResponse: ResponseEncodable {}
extension WebhookDeliveriesResponse: ResponseEncodable {}
