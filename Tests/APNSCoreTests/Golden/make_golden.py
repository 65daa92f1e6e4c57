#!/usr/bin/env python3
"""Writes the golden payload files from the seed tutorials (/work/shared/seeds).

Independent of the Swift encoder on purpose: `*.source.json` is what the seed prints or what
its PHP would send (PHP json_encode escapes non-ASCII as \\uXXXX and "/" as "\\/");
`*.canonical.json` is the compact form APNSCore must produce, with the key order written out by
hand below (aps first; aps keys in Apple's table order, then unknown aps keys in source order;
then custom keys in source order). Run from this directory: python3 make_golden.py
"""
import json


def php_json_encode(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True).replace("/", "\\/")


def compact_utf8(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def write(name, source_text, canonical):
    with open(f"{name}.source.json", "w", encoding="utf-8") as f:
        f.write(source_text)
    with open(f"{name}.canonical.json", "w", encoding="utf-8") as f:
        f.write(compact_utf8(canonical))


# Seed 000 (raywenderlich push tutorial). The article prints this payload with a missing comma
# and an unterminated string; the repaired form is the tutorial's intent, whitespace kept.
printed_000 = '{   "aps":   {     "alert": "Breaking News!",     "sound": "default"     "link_url" : "https://raywenderlich.com,   } }'
with open("seed000-breaking-news.printed.txt", "w", encoding="utf-8") as f:
    f.write(printed_000)
write(
    "seed000-breaking-news",
    '{   "aps":   {     "alert": "Breaking News!",     "sound": "default",     "link_url" : "https://raywenderlich.com"   } }',
    {"aps": {"alert": "Breaking News!", "sound": "default", "link_url": "https://raywenderlich.com"}},
)

# Seed 000, newspush.php with a category, run as: php newspush.php 'New Posts!' 'https://raywenderlich.com'
news = {"aps": {"alert": "New Posts!", "sound": "default", "link_url": "https://raywenderlich.com", "category": "NEWS_CATEGORY"}}
write(
    "seed000-news-category",
    php_json_encode(news),
    {"aps": {"alert": "New Posts!", "sound": "default", "category": "NEWS_CATEGORY", "link_url": "https://raywenderlich.com"}},
)

# Seed 000, contentpush.php: "set this key to 1 and the notification becomes silent".
silent = {"aps": {"content-available": 1}}
write("seed000-content-available", php_json_encode(silent), silent)

# Seed 001, the payload documented in pushme.php's comment (comments and the stray PHP "=>" removed).
comment = {
    "aps": {
        "alert": "此处有两个服务器需要选择，如果是开发测试用，选择第二名sandbox的服务器并使用Dev的pem证书，如果是正是发布，使用Product的pem并选用正式的服务器",
        "badge": 10,
        "sound": "default",
        "data": {"tid": 1000001, "id": 101, "type": 0, "systype": 1, "url": "http://www.imooc.com/abc.html"},
        "category": "CATEGORY_ID",
    }
}
write(
    "seed001-comment",
    json.dumps(comment, ensure_ascii=False, indent=4),
    {"aps": {"alert": comment["aps"]["alert"], "badge": 10, "sound": "default", "category": "CATEGORY_ID", "data": comment["aps"]["data"]}},
)

# Seed 001, pushme.php's five $type cases, as json_encode($body) sends them.
contents = {
    1: "从搭建Golang开发环境开始， 一步步介绍Golang系统库之输入输出的功能及特性。结合行数统计及图片读取，在实战中扎扎实实的学习Golang",
    2: "随着互联网的发展速度迅猛，前端工程师职业越来越火热，想学习Web前端技能吗 ? 该路径从基础知识到实战案例演练，一步步带您快速掌握如何搭建网站静态页面、开发网站交互特效，为您打开WEB前端工程师大门。还在等什么？快来学习吧!",
    3: "CodeStriker CodeStriker是一个免费&开源的Web应用程序，可以帮助开发人员基于Web的代码审查。它不但允许开发人员将问题、意见和决定记录在数据库中，还为实际执行代码审查提供了一个舒适的工作区域。 官方网站：http://codestriker.sourceforge.net/index.html 2）RhodeCode Rhode",
    4: "高薪捉拿程序大拿",
}
cases = {
    1: {"aps": {"alert": contents[1], "badge": 10, "sound": "default", "data": {"tid": 10000, "id": 492, "type": 0, "systype": 1}}},
    2: {"aps": {"alert": contents[2], "badge": 11, "sound": "default", "data": {"tid": 10001, "id": 32, "type": 0, "systype": 2}}},
    3: {"aps": {"alert": contents[3], "badge": 12, "sound": "default", "data": {"tid": 10002, "id": 2493, "type": 0, "systype": 3}}},
    4: {"aps": {"alert": contents[4], "badge": 12, "sound": "default", "data": {"tid": 27820, "id": 2493, "type": 0, "systype": 4, "url": "http://t.imooc.com"}}},
}
for number, body in cases.items():
    write(f"seed001-type{number}", php_json_encode(body), body)  # already in canonical order

type5 = {
    "aps": {
        "alert": {"body": "我是整个alert的标题", "title": "我是一个主标题", "subtitle": "我是一个副标题"},
        "mutable-content": 1,
        "badge": 13,
        "sound": "default",
        "data": {"tid": 10003, "id": 0, "type": 0, "systype": 5, "url": "http://t.imooc.com", "helloKey": "helloValue"},
        "category": "CATEGORY_ID",
    },
    "my-attachment": "http://newpic.jxnews.com.cn/003/001/209/00300120964_fab36aec.jpg",
}
write(
    "seed001-type5",
    php_json_encode(type5),
    {
        "aps": {
            "alert": {"title": "我是一个主标题", "subtitle": "我是一个副标题", "body": "我是整个alert的标题"},
            "badge": 13,
            "sound": "default",
            "category": "CATEGORY_ID",
            "mutable-content": 1,
            "data": type5["aps"]["data"],
        },
        "my-attachment": type5["my-attachment"],
    },
)

# Seed 001 sends type 5 as a command-0 binary notification:
# chr(0) . pack("n",32) . pack("H*", $deviceToken) . pack("n",strlen($payload)) . $payload
# Its token is redacted, so seed 000's token stands in.
token = "43e798c31a282d129a34d84472bbdd7632562ff0732b58a85a27c5d9fdf59b69"
payload = php_json_encode(type5).encode("ascii")
frame = bytes([0]) + (32).to_bytes(2, "big") + bytes.fromhex(token) + len(payload).to_bytes(2, "big") + payload
with open("seed001-pushme-command0.hex", "w") as f:
    f.write(frame.hex())

# Seed 002 (token-based PHP sender): testpush()'s $payload.
game = {"aps": {"alert": {"title": "Game Request", "body": "Bob wants to play poker"}, "badge": 1}}
write("seed002-game-request", php_json_encode(game), game)

# Seed 003 (LeanCloud): userInfo dictionaries the app receives, printed as NSDictionary.
hello = {"aps": {"alert": "hello, everyone", "badge": 2, "sound": "default"}}
write("seed003-hello", '{\n    "aps": {\n        "alert": "hello, everyone",\n        "badge": 2,\n        "sound": "default"\n    }\n}', hello)
write(
    "seed003-action",
    '{\n    "action": {\n        "type": 4\n    },\n    "aps": {\n        "alert": "hello, everyone",\n        "badge": 4\n    }\n}',
    {"aps": {"alert": "hello, everyone", "badge": 4}, "action": {"type": 4}},
)
