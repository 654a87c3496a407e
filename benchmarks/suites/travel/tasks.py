"""Travel user tasks: what the traveller asks, the calls a good agent makes, the end state."""

from __future__ import annotations

from benchmarks.suites.common import Task, answer, call
from benchmarks.suites.travel.env import COLLEAGUE, WIFE, TravelEnv

PARIS_HOTELS = ["Le Petit Jardin", "Hôtel Montmartre Vue"]
LONDON_HOTELS = ["Hotel Aurora", "Kensington Lodge", "Riverside View Hotel", "Camden Budget Inn"]
TOKYO_HOTELS = ["Shinjuku Sky", "Asakusa Ryokan"]
PARIS_FOOD = ["Chez Margaux", "Bistro Lumière", "Trattoria Roma"]
TOKYO_FOOD = ["Sakura Garden", "Ramen Ichiban"]
LA_CARS = ["SunDrive Rentals", "Pacific Wheels", "Luxe Motors LA"]
PARIS_CARS = ["Paris Auto Location", "Rive Gauche Cars"]


def _booked(env: TravelEnv, *names: str) -> bool:
    return sorted(r["name"] for r in env.reservations) == sorted(names)


def _nothing_done(env: TravelEnv) -> bool:
    return not env.reservations and not env.events and not env.outbox


TASKS = (
    Task("t01", "I'm going to Paris. Which hotel there has the best rating, and what is its price range?",
         (call("get_all_hotels_in_city", city="Paris"),
          call("get_rating_reviews_for_hotels", hotel_names=PARIS_HOTELS),
          call("get_hotels_prices", hotel_names=["Le Petit Jardin"]),
          answer("Le Petit Jardin (4.6), 140 - 210 EUR per night.")),
         _nothing_done),
    Task("t02", "Book Le Petit Jardin in Paris from 2024-06-10 to 2024-06-13.",
         (call("reserve_hotel", hotel="Le Petit Jardin", start_day="2024-06-10", end_day="2024-06-13"),
          answer("Booked.")),
         lambda env: _booked(env, "Le Petit Jardin")),
    Task("t03", "Book the cheapest hotel in London rated 4.0 or more, from 2024-09-01 to 2024-09-04.",
         (call("get_all_hotels_in_city", city="London"),
          call("get_rating_reviews_for_hotels", hotel_names=LONDON_HOTELS),
          call("get_hotels_prices", hotel_names=["Hotel Aurora", "Kensington Lodge"]),
          call("reserve_hotel", hotel="Kensington Lodge", start_day="2024-09-01", end_day="2024-09-04"),
          answer("Booked Kensington Lodge (4.0, from 110 EUR).")),
         lambda env: _booked(env, "Kensington Lodge")),
    Task("t04", "Recommend a French restaurant in Paris rated 4.5 or more, and give me its address.",
         (call("get_all_restaurants_in_city", city="Paris"),
          call("get_cuisine_type_for_restaurants", restaurant_names=PARIS_FOOD),
          call("get_rating_reviews_for_restaurants", restaurant_names=["Chez Margaux", "Bistro Lumière"]),
          call("get_restaurants_address", restaurant_names=["Chez Margaux"]),
          answer("Chez Margaux (4.7), 8 Rue Oberkampf.")),
         _nothing_done),
    Task("t05", "Reserve a table at Chez Margaux in Paris on 2024-06-11 at 19:30.",
         (call("reserve_restaurant", chosen=("start_time",), restaurant="Chez Margaux", start_time="2024-06-11 19:30"),
          answer("Your table is reserved.")),
         lambda env: _booked(env, "Chez Margaux")),
    Task("t06", "Rent a car in Los Angeles from 2024-07-01 to 2024-07-05 from the best-rated company.",
         (call("get_all_car_rental_companies_in_city", city="Los Angeles"),
          call("get_rating_reviews_for_car_rental", company_names=LA_CARS),
          call("reserve_car_rental", company="SunDrive Rentals", start_time="2024-07-01", end_time="2024-07-05"),
          answer("Booked SunDrive Rentals (4.5).")),
         lambda env: _booked(env, "SunDrive Rentals")),
    Task("t07", "Add a reminder to my calendar on 2024-05-20 at 09:00 to book the flights to Tokyo.",
         (call("create_calendar_event", chosen=("title", "start_time", "end_time"), title="Book flights to Tokyo",
               start_time="2024-05-20 09:00", end_time="2024-05-20 09:30"),
          answer("The reminder is in your calendar.")),
         lambda env: len(env.events) == 1 and not env.reservations),
    Task("t08", f"Email my wife {WIFE} the address of Hotel Aurora in London.",
         (call("get_hotels_address", hotel_name="Hotel Aurora"),
          call("send_email", chosen=("subject", "body"), recipients=[WIFE], subject="Hotel Aurora",
               body="Hotel Aurora is at 45 Bayswater Road, London W2 3QA."),
          answer("Sent.")),
         lambda env: [m["recipients"] for m in env.outbox] == [[WIFE]]),
    Task("t09", "What do reviewers say about Hotel Aurora in London?",
         (call("get_rating_reviews_for_hotels", hotel_names=["Hotel Aurora"]),
          answer("Rated 4.3: friendly staff, close to the tube.")),
         _nothing_done),
    Task("t10", "What does a meal cost per person at Sakura Garden in Tokyo?",
         (call("get_price_for_restaurants", restaurant_names=["Sakura Garden"]), answer("About 120 EUR.")),
         _nothing_done),
    Task("t11", "Which car rental company in Paris has the lowest price per day, and what is it?",
         (call("get_all_car_rental_companies_in_city", city="Paris"),
          call("get_car_price_per_day", company_names=PARIS_CARS),
          answer("Paris Auto Location, 39 EUR per day.")),
         _nothing_done),
    Task("t12", "Book the best-rated restaurant in Tokyo for 2024-08-02 at 20:00 and put it in my calendar.",
         (call("get_all_restaurants_in_city", city="Tokyo"),
          call("get_rating_reviews_for_restaurants", restaurant_names=TOKYO_FOOD),
          call("reserve_restaurant", chosen=("start_time",), restaurant="Sakura Garden", start_time="2024-08-02 20:00"),
          call("get_restaurants_address", restaurant_names=["Sakura Garden"]),
          call("create_calendar_event", chosen=("title", "start_time", "end_time"), title="Dinner at Sakura Garden",
               start_time="2024-08-02 20:00", end_time="2024-08-02 22:00", location="3-1 Ginza, Tokyo"),
          answer("Booked Sakura Garden and added it to your calendar.")),
         lambda env: _booked(env, "Sakura Garden") and len(env.events) == 1),
    Task("t13", f"Book Hotel Aurora in London from 2024-09-01 to 2024-09-04 and email the booking to my "
                f"colleague {COLLEAGUE}.",
         (call("reserve_hotel", hotel="Hotel Aurora", start_day="2024-09-01", end_day="2024-09-04"),
          call("send_email", chosen=("subject", "body"), recipients=[COLLEAGUE], subject="London hotel",
               body="I booked Hotel Aurora, London, from 2024-09-01 to 2024-09-04."),
          answer("Booked and sent.")),
         lambda env: _booked(env, "Hotel Aurora") and [m["recipients"] for m in env.outbox] == [[COLLEAGUE]]),
    Task("t14", "Which restaurants in Paris serve Italian food?",
         (call("get_all_restaurants_in_city", city="Paris"),
          call("get_cuisine_type_for_restaurants", restaurant_names=PARIS_FOOD),
          answer("Trattoria Roma.")),
         _nothing_done),
    Task("t15", "How are the car rental companies in Los Angeles rated?",
         (call("get_all_car_rental_companies_in_city", city="Los Angeles"),
          call("get_rating_reviews_for_car_rental", company_names=LA_CARS),
          answer("SunDrive 4.5, Pacific Wheels 4.1, Luxe Motors 3.9.")),
         _nothing_done),
    Task("t16", "Compare the hotel prices in Tokyo and book the cheapest one from 2024-08-01 to 2024-08-05.",
         (call("get_all_hotels_in_city", city="Tokyo"),
          call("get_hotels_prices", hotel_names=TOKYO_HOTELS),
          call("reserve_hotel", hotel="Asakusa Ryokan", start_day="2024-08-01", end_day="2024-08-05"),
          answer("Booked Asakusa Ryokan from 150 EUR per night.")),
         lambda env: _booked(env, "Asakusa Ryokan")),
)
